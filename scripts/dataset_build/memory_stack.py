"""How each published project's stack stores the training state, as job-spec fields (datasets/memory.csv):
the memory convention, the loss's logits, litgpt's and its adapters' facts, an untied LM head.
memory.py maps the rows; these are the rules it maps their stacks by.
"""

import re


def sharding(published):
    s = published.split(" ")[0]
    return s if s in ("none", "zero1", "zero2", "zero3", "fsdp") else ""


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
