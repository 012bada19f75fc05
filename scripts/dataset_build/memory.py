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
from .memory_stack import (  # noqa: F401  (re-exported: tests and build() name them as memory.*)
    CONVENTION_RULES,
    CHUNKED_CROSS_ENTROPY,
    COMPILED_LOSS_SOURCES,
    LITGPT_FLAT_BLOCK_SOURCE,
    LITGPT_CONFIG_RUNS,
    litgpt_config_run,
    litgpt_stack,
    litgpt_adapters,
    untie_embeddings,
    CHUNKED_LOSS_RECIPES,
    cross_entropy,
    memory_convention,
    sharding,
)

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
