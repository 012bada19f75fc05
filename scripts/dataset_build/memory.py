"""Published peak GPU memory of training runs (`memory/measured_memory.csv`) -> datasets/memory.csv.

One output row per shared row, in the shared file's order (row_id as published). The published columns
are kept (renamed `*_as_published` where this module writes a mapped value under the plain name):
`model` is a zoo id (empty when the architecture is not in configs/models/), `gpu` a catalog id (empty
when the GPU is not named or not in configs/gpus/), and precision / task / sharding / recompute /
optimizer / memory kind get the job-spec vocabulary. Nothing measured is changed: the value columns are
copied verbatim. What the mapping assumed is written to `mapping_notes`.
"""

import os
import re

from .common import read_csv_with_lines
from .schema import PRECISIONS

SHARED_FILE = os.path.join("memory", "measured_memory.csv")

MEMORY_COLUMNS = [
    "row_id", "origin", "source", "source_ref", "shared_ref",
    "model", "model_as_published", "model_params_b", "params_note", "hf_config_hint",
    "task", "finetune", "lora_rank", "lora_targets", "lora_targets_as_published", "quantized_base",
    "double_quant", "quantized_keeps_inputs", "quantized_head", "quantized_from_fp16", "lora_dropout", "adapter_modules", "precision", "precision_as_published", "memory_convention",
    "cross_entropy", "grad_sync", "frozen_grads", "untie_embeddings", "grad_accum",
    "gpu", "gpu_as_published", "gpu_norm", "gpu_mem_capacity_gb", "num_gpus", "gpus_per_node",
    "tp", "pp", "cp", "ep", "dp",
    "sharding", "sharding_as_published", "activation_checkpointing", "activation_checkpointing_as_published",
    "cpu_offload", "micro_batch", "seq_len", "packing",
    "optimizer", "optimizer_as_published", "fused_or_compile",
    "outcome", "measured_peak_gb", "measured_peak_gib", "value_as_published", "unit_as_published", "unit_basis",
    "memory_kind", "memory_kind_as_published", "framework", "quality_flag", "mapping_notes", "notes",
]

# source_ref repository -> short origin id (one per publishing project)
ORIGIN = {
    "pytorch/torchtitan": "torchtitan",
    "pytorch/ao": "torchao",
    "pytorch/torchtune": "torchtune",
    "Lightning-AI/litgpt": "litgpt",
    "huggingface/peft": "peft",
    "huggingface/transformers": "transformers",
    "modelscope/ms-swift": "ms-swift",
}

# published model name -> zoo id. Llama 3 and 3.1 share the architecture at these sizes (RoPE scaling
# does not change weights or activations); QwQ-32B is the Qwen2.5-32B architecture; the Qwen3-30B-A3B
# checkpoints (base, instruct, FP8 release) are one architecture.
MODEL_MAP = {
    "meta-llama/Llama-3.2-3B": "llama3.2-3b",
    "Llama 3.2 3B": "llama3.2-3b",
    "llama-3.2-3b": "llama3.2-3b",
    "llama-3.2-1b": "llama3.2-1b",
    "TinyLlama-1.1B (tiny-llama-1.1b config)": "tinyllama-1.1b",
    "tiny-llama": "tinyllama-1.1b",
    "Llama-2-7B": "llama2-7b",
    "Llama-2-7b-hf": "llama2-7b",
    "llama-2-7b": "llama2-7b",
    "Llama-2-13b-hf": "llama2-13b",
    "meta-llama/Llama-2-70b-hf": "llama2-70b",
    "Llama-2-70B": "llama2-70b",
    "Llama 3.1 8B": "llama3-8b",
    "Llama 3 8B (torchtitan llama3 8B)": "llama3-8b",
    "Llama 3 8B (torchtitan llama3 8B flavor)": "llama3-8b",
    "llama-3-8b": "llama3-8b",
    "llama-3.1-8b": "llama3-8b",
    "Llama-3-8B-Instruct": "llama3-8b",
    "Llama 3.1 70B": "llama3-70b",
    "Llama 3.1 405B": "llama3.1-405b",
    "Qwen/Qwen2.5-7B": "qwen2.5-7b",
    "Qwen/Qwen2.5-7B-Instruct": "qwen2.5-7b",
    "Qwen/Qwen2.5-32B": "qwen2.5-32b",
    "Qwen/QwQ-32B": "qwen2.5-32b",
    "Qwen3 8B (random init)": "qwen3-8b",
    "Qwen/Qwen3-30B-A3B": "qwen3-30b-a3b",
    "Qwen/Qwen3-30B-A3B-Base": "qwen3-30b-a3b",
    "Qwen/Qwen3-30B-A3B-Instruct-2507": "qwen3-30b-a3b",
    "Qwen/Qwen3-30B-A3B-Instruct-2507-FP8": "qwen3-30b-a3b",
    "Qwen/Qwen3-235B-A22B-Instruct-2507": "qwen3-235b-a22b",
    "bert-large-uncased (AutoModelForSequenceClassification)": "bert-large",
    # litgpt's config names. "gemma2b" is litgpt's gemma-2-2b row (its hint says gemma2, 2.61B).
    "phi-1.5": "phi-1.5",
    "phi-2": "phi-2",
    "phi-3": "phi-3-mini",
    "stablelm-base-alpha-3b": "stablelm-base-alpha-3b",
    "gemma-2b": "gemma-2b",
    "gemma-7b": "gemma-7b",
    "gemma2-2b": "gemma2-2b",
    "gemma2b": "gemma2-2b",
    "gemma2-9b": "gemma2-9b",
    "mistral-7b": "mistral-7b",
    "mistral-7b-v0.2": "mistral-7b-v0.2",
    "falcon-7b": "falcon-7b",
    "falcon-40b": "falcon-40b",
}
MODEL_NOTES = {
    "bert-large-uncased (AutoModelForSequenceClassification)":
        "model: zoo bert-large has the pretraining (MLM) head, the run a 2-class head",
    "Qwen/QwQ-32B": "model: QwQ-32B is the Qwen2.5-32B architecture",
    "Qwen/Qwen3-30B-A3B-Instruct-2507-FP8": "model: FP8 checkpoint of the Qwen3-30B-A3B architecture",
}

# published GPU name -> (catalog id, how: exact | variant_assumed | proxy)
GPU_MAP = {
    "A100-SXM4-40GB": ("a100-sxm4-40gb", "exact"),
    "A100 80GB": ("a100-sxm4-80gb", "variant_assumed"),
    "A100 (80GB assumed by table context)": ("a100-sxm4-80gb", "variant_assumed"),
    "B200": ("b200-sxm-180gb", "exact"),
    "B200 (8x, power limited)": ("b200-sxm-180gb", "exact"),
    "H100 (8x, single node)": ("h100-sxm5-80gb", "variant_assumed"),
    "H100 80GB": ("h100-sxm5-80gb", "variant_assumed"),
    "H100 SXM 96GB HBM2e (Grand Teton, 500W)": ("h100-sxm5-96gb", "exact"),
    "H200 141GB": ("h200-sxm-141gb", "exact"),
    "NVIDIA L40S": ("l40s", "exact"),
    "RTX 4090 24GB": ("rtx-4090", "exact"),
    "RTX A6000 48GB": ("rtx-a6000", "exact"),
    "Tesla V100-SXM2 16GB": ("v100-sxm2-16gb", "exact"),
    # AWS A10G: the A10's GA102 with the same 24 GB GDDR6 (clocks differ; the memory estimate does not
    # depend on clocks)
    "A10G 24GB": ("a10", "proxy"),
}
GPU_NOTES = {
    "variant_assumed": "gpu: form factor not stated, SXM assumed (same memory size)",
    "proxy": "gpu: A10G (not in configs/gpus) mapped to a10, same 24 GB memory",
}


# memory_kind as published -> allocated | active | reserved | reserved_minus_init | nvidia_smi |
# not_stated | screenshot
MEMORY_KIND_RULES = (
    ("max_allocated", "allocated"),
    ("peak active", "active"),
    ("max_reserved (torch.cuda.max_memory_reserved at end minus reserved at init", "reserved_minus_init"),
    ("max_reserved (minus init)", "reserved_minus_init"),
    ("max_reserved", "reserved"),
    ("nvidia-smi", "nvidia_smi"),
    ("not stated", "not_stated"),
    ("screenshot", "screenshot"),
)


def memory_kind(published):
    for prefix, kind in MEMORY_KIND_RULES:
        if published.startswith(prefix):
            return kind
    raise ValueError("unknown memory_kind %r" % published)


def finetune_method(task, quantized_base):
    """full | lora | qlora, or empty for methods a job spec cannot state (other PEFT methods, adapters,
    LISA, LLaMA-Pro, DoRA, AdaLoRA)."""
    if task.startswith("pretrain") or task == "full_ft" or task.startswith("full_ft (") and "LISA" not in task:
        return "full"
    if task == "qlora" or (task == "lora" and quantized_base.startswith(("nf4", "4-bit"))):
        return "qlora"
    if task in ("lora", "lora (dreambooth)"):
        return "lora"
    return ""


# (framework contains, precision as published starts with) -> the job spec's memory.convention
# (libvocab/src/memory_convention.cpp). First match wins; a row no rule names gets "" (the precision's
# default). Pure 16-bit: litgpt bf16-true, torchtune dtype bf16, PEFT's custom loops on bfloat16
# weights without AMP, HF Trainer on bf16 weights without mixed precision (AdamW keeps its state in
# the parameters' dtype). FSDP2 mixed precision: torchtitan and torchao's torchtitan benchmarks.
CONVENTION_RULES = (
    ("megatron", "", "megatron"),
    ("deepspeed", "", "master_weights"),
    ("torchtitan", "", "fsdp"),
    ("litgpt", "bf16-true", "pure"),
    ("litgpt", "bf16-mixed", "autocast"),
    ("torchtune", "", "pure"),
    ("", "bfloat16 weights (use_amp=False", "pure"),
    ("", "bf16 (--bf16, accelerate mixed_precision no)", "pure"),
    ("transformers Trainer)", "bf16 (torch_dtype bfloat16)", "pure"),
    ("transformers Trainer)", "bf16 (model default dtype)", "pure"),
    ("", "bf16 mixed", "autocast"),
    ("", "bf16 (--bf16; bnb compute bf16)", "autocast"),
    ("", "BF16 AMP", "autocast"),
    ("", "fp16 AMP", "autocast"),
    ("pytorch + torchao", "bf16", "pure"),
)


# Origins whose training scripts compute the loss a chunk at a time (job spec memory.cross_entropy):
# litgpt's finetune and pretrain scripts call chunked_cross_entropy (upcasting 128-position chunks).
CHUNKED_CROSS_ENTROPY = ("litgpt",)

# Sources whose torchtitan compiles the loss with the model when training.compile is on (torchtitan
# bbb1b616e, 2025-04-02, "build_loss_fn"; #1608 later made it compile.components, loss by default):
# the H200 table of 2025-06 (torchtitan e7c0cae), torchao's MI300X (2c8b594) and B200 (6fc499f)
# tables of 2025-08. torchtitan's 2024-12 benchmarks and torchao's H100 table (torchtitan 0.0.2)
# predate it; the other torchtitan-run sources do not say which commit ran.
COMPILED_LOSS_SOURCES = (
    "torchtitan benchmarks/llama3-8b_h200_202506_trainy-whitefiber",
    "torchao float8 training doc (MI300X)",
    "torchao float8/MX training doc (B200)",
)


# litgpt's own stack, read in the code that measured its tables: Lightning Fabric's FSDPStrategy
# accumulates under fabric.no_backward_sync (FSDP no_sync: whole gradients until the last
# micro-batch; memory.grad_sync: step); lit-gpt of 2023 (8641822) wrapped whole Blocks with
# use_orig_params=True, so LoRA's frozen weights shared flat parameters with the adapters and got
# gradients (memory.frozen_grads; pytorch #91167, litgpt #1538 later wrapped the Linear layers); and
# litgpt pinned bitsandbytes 0.41.1 (2023) and 0.42.0 (the config hub tables), before its PR #1270
# (0.43.2) stopped MatMul4Bit saving the inputs of frozen 4-bit projections
# (finetune.quantized_keeps_inputs). Its QLoRA quantises through Lightning's BitsandbytesPrecision,
# which replaces every nn.Linear, lm_head included (litgpt passes no ignore_modules), each quantised
# from an FP16 copy of its weight (_quantize_weight), so bitsandbytes dequantises to FP16 and casts
# (finetune.quantized_head, finetune.quantized_from_fp16).
LITGPT_FLAT_BLOCK_SOURCE = "lit-gpt 8641822"


# litgpt's config-hub benchmarks ran each config's own `devices`, whatever the table's Machine column
# says: every "4xA10G" row whose config sets devices: 1 repeats its 1xA10G value (data README, caveat
# 4), and phi-2/full.yaml at 5895df1004 (global_batch_size 8, micro_batch_size 4) would fail litgpt's
# `assert gradient_accumulation_iters > 0` (litgpt/args.py: 8 // devices // 4) on four devices.
# (devices, global_batch_size) of the multi-GPU full fine-tuning configs, read in each yaml at the
# commit the row names; their accumulation runs under FSDP no_sync.
LITGPT_CONFIG_RUNS = {
    ("config_hub/finetune/gemma-2b/full.yaml", "5895df1004"): (4, 16),
    ("config_hub/finetune/llama-2-7b/full.yaml", "5895df1004"): (4, 64),
    ("config_hub/finetune/llama-3-8b/full.yaml", "5895df1004"): (4, 64),
    ("config_hub/finetune/phi-2/full.yaml", "5895df1004"): (2, 8),
    ("config_hub/finetune/stablelm-base-alpha-3b/full.yaml", "5895df1004"): (2, 8),
    ("config_hub/finetune/llama-2-7b/full.yaml", "134a07146a"): (4, 64),
}


def litgpt_config_run(rec, origin):
    """(devices, global_batch_size) of a multi-GPU litgpt config-hub row, or None."""
    if origin != "litgpt" or sharding(rec["sharding"]) != "fsdp":
        return None
    m = re.search(r"config (config_hub/finetune/\S+) read at commit ([0-9a-f]+)", rec["notes"])
    return LITGPT_CONFIG_RUNS.get((m.group(1), m.group(2))) if m else None


def litgpt_stack(rec, origin, method):
    """(grad_sync, frozen_grads, quantized_keeps_inputs, grad_accum) of a litgpt row, empty otherwise;
    quantized_keeps_inputs "true" also means litgpt's quantized_head and quantized_from_fp16.
    The 2023 tables publish their global batch in the notes ("minibatch 128 via grad accumulation"),
    the config hub's in its configs (LITGPT_CONFIG_RUNS)."""
    if origin != "litgpt":
        return "", "", "", ""
    fsdp = sharding(rec["sharding"]) == "fsdp" and rec["num_gpus"] not in ("", "1")
    grad_accum = ""
    m = re.search(r"minibatch (\d+) via grad accumulation", rec["notes"])
    run = litgpt_config_run(rec, origin)
    if fsdp and m and rec["micro_batch"].isdigit():
        grad_accum = str(max(1, int(m.group(1)) // (int(rec["num_gpus"]) * int(rec["micro_batch"]))))
    elif fsdp and run and rec["micro_batch"].isdigit():
        grad_accum = str(max(1, run[1] // run[0] // int(rec["micro_batch"])))
    no_sync = fsdp and grad_accum not in ("", "1")
    return ("step" if no_sync else "",
            "true" if no_sync and LITGPT_FLAT_BLOCK_SOURCE in rec["source"] and method != "full" else "",
            "true" if method == "qlora" else "",
            grad_accum)


def litgpt_adapters(origin, method, model):
    """(lora_dropout, adapter_modules) of a litgpt LoRA/QLoRA row, empty otherwise (job spec
    finetune.dropout, finetune.adapter_modules). lit-gpt 8641822's finetune/lora.py sets
    lora_dropout = 0.05; the config hub's LoRA and QLoRA configs at the table commits (5895df1004,
    e54939861b, 2b195c7f5b, 00af8b0d9b, 134a07146a) set 0.1 for Gemma and Gemma 2, 0.05 for every
    other model. Both wrap q, k, v in one LoRAQKVLinear (one dropout) and fc_1, fc_2 apart
    (litgpt/lora.py)."""
    if origin != "litgpt" or method not in ("lora", "qlora"):
        return "", ""
    return ("0.1" if model.startswith("gemma") else "0.05"), "fused_qkv"


def untie_embeddings(origin, hf_config_hint):
    """litgpt's GPT has no tied LM head (litgpt/model.py at the config-hub commits and since): its
    checkpoint converter copies a tied embedding (the hint's "tied emb": Llama 3.2 1B / 3B; every
    Gemma and Gemma 2 checkpoint, whose HF configs tie word embeddings) into a separate lm_head,
    held, and for full fine-tuning trained, apart (memory.untie_embeddings)."""
    tied = "tied emb" in hf_config_hint or hf_config_hint.startswith(("gemma;", "gemma2;"))
    return "true" if origin == "litgpt" and tied else ""


# torchtune's Llama 3.1 table (README 2024-09): the recipes its other settings are read from
# (recipes/configs/llama3_1/*.yaml at 30b8519e, 2024-09-24) use CEWithChunkedOutputLoss for 8B and 70B;
# 405B_qlora.yaml keeps torch.nn.CrossEntropyLoss.
CHUNKED_LOSS_RECIPES = (
    ("torchtune README 2024-09 Llama 3.1 memory/speed table", ("llama3-8b", "llama3-70b")),
)


def cross_entropy(origin, source, compile_published, model="", tp="1"):
    if origin in CHUNKED_CROSS_ENTROPY or "chunked CE" in compile_published:
        return "chunked"
    if any(source == s and model in models for s, models in CHUNKED_LOSS_RECIPES):
        return "chunked"
    if source in COMPILED_LOSS_SOURCES and "torch.compile" in compile_published:
        return "compiled"
    # torchtitan turns loss_parallel on with TP (parallelism.disable_loss_parallel defaults to false):
    # DTensor's vocab-parallel log-softmax runs the decomposed ops, eager.
    if origin == "torchtitan" and tp not in ("", "1"):
        return "loss_parallel"
    return ""


def memory_convention(framework, precision_published, precision, source=""):
    """The first rule whose stack names the row's framework or source. The source counts because it
    may name the stack where the framework column does not: PEFT's accelerate DeepSpeed guide passes
    the same bf16 flag as its FSDP guide, but DeepSpeed's BF16 engine (ZeRO-3's zero.Init included)
    casts the module to 16 bits and keeps the FP32 master copies in its optimizer."""
    if precision in ("fp32", "tf32"):
        return ""  # one FP32 copy of everything under any convention
    stack = (framework + " " + source).lower()
    for fw, prec, convention in CONVENTION_RULES:
        if fw.lower() in stack and precision_published.startswith(prec):
            return convention
    return ""


def lora_targets(published):
    """Adapter targets in the job-spec vocabulary: attention | attention_qkv | mlp | all (empty: the
    default). Attention lists without the output projection (litgpt's lora_query/lora_value, PEFT's
    q_proj,v_proj) adapt the query/key/value projections only: attention_qkv."""
    t = published.lower()
    if not t:
        return ""
    if "all-linear" in t or "mlp" in t or ("gate_proj" in t and "q_proj" in t):
        return "all"
    if "gate_proj" in t or "up_proj" in t:
        return "mlp"
    names = [n.strip() for n in t.replace("(", ",").replace(")", ",").replace(" ", ",").split(",") if n.strip()]
    if not any(n in ("o", "o_proj", "proj", "projection", "out_proj", "dense", "c_proj", "lora_projection") for n in names):
        return "attention_qkv"
    return "attention"


def sharding(published):
    s = published.split(" ")[0]
    return s if s in ("none", "zero1", "zero2", "zero3", "fsdp") else ""


def recompute(published):
    s = published.split(" ")[0]
    return s if s in ("none", "selective", "full") else ""


def optimizer(published):
    """adamw | adam | sgd, or empty where the state is not what the job spec counts (8-bit / 4-bit /
    FP8 / BF16 states, paged, optimizer-in-backward, Adafactor, GaLore, Muon, LoRA-FA) or not stated."""
    o = published.lower()
    if not o or "not stated" in o:
        return ""
    exotic = ("8bit", "8-bit", "4-bit", "fp8", "paged", "in_bwd", "adafactor", "galore", "muon", "lora-fa",
              "precision-aware", "lpmm")
    if any(x in o for x in exotic):
        return ""
    if o.startswith("sgd"):
        return "sgd"
    if o.startswith("adamw") or o.startswith("adam (adamw)"):
        return "adamw"
    if o == "adam":
        return "adam"
    return ""


def build(shared, stats=None):
    path = os.path.join(shared, SHARED_FILE)
    rows = []
    for rec, line in read_csv_with_lines(path):
        notes = []
        repo = rec["source_ref"].split("@")[0]
        model = MODEL_MAP.get(rec["model"], "")
        if rec["model"] in MODEL_NOTES:
            notes.append(MODEL_NOTES[rec["model"]])
        gpu, how = GPU_MAP.get(rec["gpu"], ("", ""))
        if how in GPU_NOTES:
            notes.append(GPU_NOTES[how])
        prec = rec["precision_ptp"]
        if prec and prec not in PRECISIONS:
            raise ValueError("%s:%d: precision_ptp %r" % (path, line, prec))
        method = finetune_method(rec["task"], rec["quantized_base"])
        grad_sync, frozen_grads, quantized_keeps_inputs, grad_accum = litgpt_stack(rec, ORIGIN[repo], method)
        lora_dropout, adapter_modules = litgpt_adapters(ORIGIN[repo], method, model)
        num_gpus, gpus_per_node, dp = rec["num_gpus"], rec["gpus_per_node"], rec["dp"]
        run = litgpt_config_run(rec, ORIGIN[repo])
        if run and str(run[0]) != num_gpus:
            notes.append("num_gpus: the config's devices %d, not the table's machine of %s GPUs (litgpt's "
                         "benchmarks ran the config's devices)" % (run[0], rec["num_gpus"]))
            num_gpus = gpus_per_node = dp = str(run[0])
        rows.append({
            "row_id": rec["row_id"],
            "origin": ORIGIN[repo],
            "source": rec["source"],
            "source_ref": rec["source_ref"],
            "shared_ref": "memory/measured_memory.csv:%d" % line,
            "model": model,
            "model_as_published": rec["model"],
            "model_params_b": rec["model_params_b"],
            "params_note": rec["params_note"],
            "hf_config_hint": rec["hf_config_hint"],
            "task": rec["task"],
            "finetune": method,
            "lora_rank": rec["lora_rank"],
            "lora_targets": lora_targets(rec["lora_targets"]) if method in ("lora", "qlora") else "",
            "lora_targets_as_published": rec["lora_targets"],
            "quantized_base": rec["quantized_base"],
            "double_quant": "true" if method == "qlora" and "double quant" in rec["quantized_base"] else "",
            "quantized_keeps_inputs": quantized_keeps_inputs,
            "quantized_head": quantized_keeps_inputs,
            "quantized_from_fp16": quantized_keeps_inputs,
            "lora_dropout": lora_dropout,
            "adapter_modules": adapter_modules,
            "precision": prec,
            "precision_as_published": rec["precision"],
            "memory_convention": memory_convention(rec["framework"], rec["precision"], prec, rec["source"]),
            "cross_entropy": cross_entropy(ORIGIN[repo], rec["source"], rec["fused_or_compile"], model, rec["tp"]),
            "grad_sync": grad_sync,
            "frozen_grads": frozen_grads,
            "untie_embeddings": untie_embeddings(ORIGIN[repo], rec["hf_config_hint"]),
            "grad_accum": grad_accum,
            "gpu": gpu,
            "gpu_as_published": rec["gpu"],
            "gpu_norm": rec["gpu_norm"],
            "gpu_mem_capacity_gb": rec["gpu_mem_capacity_gb"],
            "num_gpus": num_gpus,
            "gpus_per_node": gpus_per_node,
            "tp": rec["tp"], "pp": rec["pp"], "cp": rec["cp"], "ep": rec["ep"], "dp": dp,
            "sharding": sharding(rec["sharding"]),
            "sharding_as_published": rec["sharding"],
            "activation_checkpointing": recompute(rec["activation_checkpointing"]),
            "activation_checkpointing_as_published": rec["activation_checkpointing"],
            "cpu_offload": rec["cpu_offload"],
            "micro_batch": rec["micro_batch"],
            "seq_len": rec["seq_len"],
            "packing": rec["packing"],
            "optimizer": optimizer(rec["optimizer"]),
            "optimizer_as_published": rec["optimizer"],
            "fused_or_compile": rec["fused_or_compile"],
            "outcome": rec["outcome"],
            "measured_peak_gb": rec["measured_peak_gb"],
            "measured_peak_gib": rec["measured_peak_gib"],
            "value_as_published": rec["value_as_published"],
            "unit_as_published": rec["unit_as_published"],
            "unit_basis": rec["unit_basis"],
            "memory_kind": memory_kind(rec["memory_kind"]),
            "memory_kind_as_published": rec["memory_kind"],
            "framework": rec["framework"],
            "quality_flag": rec["quality_flag"],
            "mapping_notes": "; ".join(notes),
            "notes": rec["notes"],
        })
    if stats is not None:
        stats["memory_in"] = len(rows)
    return rows


def check(rows, root):
    """Problems: unknown zoo / catalog ids (when configs/ is there), duplicate row ids, bad values."""
    problems = []
    mdir, gdir = os.path.join(root, "configs", "models"), os.path.join(root, "configs", "gpus")
    for d, col in ((mdir, "model"), (gdir, "gpu")):
        if os.path.isdir(d):
            known = set(f[:-5] for f in os.listdir(d) if f.endswith(".yaml"))
            for v in sorted(set(r[col] for r in rows if r[col]) - known):
                problems.append("memory: %s id %s not in %s" % (col, v, os.path.relpath(d, root)))
    ids = [r["row_id"] for r in rows]
    if len(ids) != len(set(ids)):
        problems.append("memory: duplicate row_id")
    for r in rows:
        if r["outcome"] == "ok":
            try:
                gib, gb = float(r["measured_peak_gib"]), float(r["measured_peak_gb"])
            except ValueError:
                problems.append("memory %s: ok row without a value" % r["row_id"])
                continue
            if not (gib > 0 and abs(gb / gib / (2 ** 30 / 1e9) - 1) < 0.01):
                problems.append("memory %s: GB and GiB disagree" % r["row_id"])
        elif r["outcome"] != "oom":
            problems.append("memory %s: outcome %s" % (r["row_id"], r["outcome"]))
        if not re.match(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}:", r["source_ref"]):
            problems.append("memory %s: source_ref %s" % (r["row_id"], r["source_ref"]))
    return problems
