"""What the published runs really ran (shared/docs/dataset-facts.md, checked against the benchmarks'
own scripts): fills runs.csv's `nccl_p2p` and `computed_seq_len` and Lambda BERT SQuAD's seq_len.

Applied by the pipeline after run ids are assigned, so the ids (and everything that cites them) stay
those of the rows as published. Every value set here is derived and says so in `notes` /
`step_time_derivation`.
"""

from .common import fmt, join_flags, join_notes

FACTS = "dataset-facts.md"
LAMBDA_REPO = "lambdal/deeplearning-benchmark"
LAMBDA_SCRIPT = "pytorch/scripts/benchmark_pytorch.sh"
P2P_ADDED = "0a684b624bab45ebb8378c4835e05fdf4113d627"  # 2022-10-16, `export NCCL_P2P_DISABLE=1` added
P2P_COMMENTED = "aad0d1cd"  # 2023-02-06, every export commented out (`# export NCCL_P2P_DISABLE=1`)

# Lambda multi-GPU rows -> (nccl_p2p, why). dataset-facts.md §1 cites the script at P2P_ADDED; the
# script's history (git log -S NCCL_P2P_DISABLE) shows the export only between P2P_ADDED and
# P2P_COMMENTED, so the value follows the dates of each system's result logs (pytorch/results/<dir>).
P2P_DISABLED_WHY = ("%s@%s:%s runs `export NCCL_P2P_DISABLE=1` in every benchmark function (%s §1); "
                    "active from %s (2022-10-16) until %s (2023-02-06) commented it out; results of this system "
                    "committed inside that window (%%s)" % (LAMBDA_REPO, P2P_ADDED, LAMBDA_SCRIPT, FACTS,
                                                            P2P_ADDED[:8], P2P_COMMENTED))
LAMBDA_V1_P2P = {
    # curated v1 system -> (value, result folder and its commit dates)
    "2x RTX 4090": ("disabled", "pytorch/results/2x4090_v1, 2022-10-16..2022-10-20, added with the export"),
    "2x RTX 3090": ("disabled", "pytorch/results/2x3090_v1, 2022-10-24"),
    "2x A100 80GB SXM4": ("disabled", "pytorch/results/2xA100_80GB_SXM4_v1, 2022-11-19"),
    "4x A100 80GB SXM4": ("disabled", "pytorch/results/4xA100_80GB_SXM4_v1, 2022-11-19"),
    "8x A100 80GB SXM4": ("disabled", "pytorch/results/8xA100_80GB_SXM4_v1, 2022-11-19"),
    "2x A100 80GB PCIe": ("disabled", "pytorch/results/2xA100_80GB_PCIe_v1, 2022-12-15"),
    "LambdaCloud 2x V100 16GB": ("disabled", "pytorch/results/LambdaCloud_2xV100_16GB_v1, 2022-12-16"),
    "LambdaCloud 4xV100 16GB": ("disabled", "pytorch/results/LambdaCloud_4xV100_16GB_v1, 2022-12-16"),
    "LambdaCloud 8xV100 16GB": ("disabled", "pytorch/results/LambdaCloud_8xV100_16GB_v1, 2022-12-16"),
    "2x RTX 6000 Ada": ("disabled", "pytorch/results/2xAdaA6000_v1, 2023-01-12"),
    "4x RTX 6000 Ada": ("enabled", "pytorch/results/4xAdaA6000_v1, 2023-03-23"),
    "8x RTX 6000 Ada": ("enabled", "pytorch/results/8xAdaA6000_v1, 2023-03-23"),
    "2x RTX A6000": ("", "pytorch/results/2xA6000_v1, 2022-10-16..2022-12-15: first logs committed hours "
                         "before the export was added, later ones inside the window"),
}
P2P_ENABLED_V1_WHY = ("%s@%s:%s: results committed after %s (2023-02-06) commented out "
                      "`export NCCL_P2P_DISABLE=1`; NCCL default (P2P where the hardware allows) (%%s); "
                      "dataset-facts.md §1 describes the 2022-10-16..2023-02-06 script only"
                      % (LAMBDA_REPO, P2P_COMMENTED, LAMBDA_SCRIPT, P2P_COMMENTED))
P2P_ENABLED_V0_WHY = ("v0 logs (2020-21, every pytorch/results/<system> folder of these rows last committed before "
                      "2022-10-16): NCCL_P2P_DISABLE first appears in %s at %s (git log -S), so these runs used "
                      "NCCL's default (P2P where the hardware allows); dataset-facts.md §1 describes the "
                      "2022-10-16..2023-02-06 script only" % (LAMBDA_REPO, P2P_ADDED[:8]))

SQUAD_SEQ = 384
SQUAD_NOTE = ("seq_len %d from run_squad.sh max_seq_length, per %s §2 (%s@%s:%s runs DeepLearningExamples' "
              "scripts/run_squad.sh; the v0 logs echo the same, e.g. pytorch/results/1080Ti/PyTorch_bert_base_squad_FP16/"
              "03-03-2020_09-32-40.txt: --max_seq_length=384); derived, not printed in Lambda's tables"
              % (SQUAD_SEQ, FACTS, LAMBDA_REPO, P2P_ADDED, LAMBDA_SCRIPT))

PHASE2_COMPUTED = 296
PHASE2_NOTE = ("computed_seq_len %d derived: phase 2 reads LDDL data binned by length (bin size 64, "
               "NVIDIA/DeepLearningExamples@729963dd47e7c8bd462ad10bfac7a7b0b604e6dd:%s; NVIDIA/LDDL "
               "lddl/torch/bert.py pads each batch to its longest sample); LDDL reports bins of 64 make phase 2 1.73x faster than padding to "
               "512, i.e. 512/1.73 = 296 computed tokens per sequence (%s §3); seq_len stays 512, the bin limit")
PHASE2_SCRIPT = {"PyTorch": "PyTorch/LanguageModeling/BERT/scripts/run_pretraining.sh",
                 "PaddlePaddle": "PaddlePaddle/LanguageModeling/BERT (loader aligns batch lengths to 64)"}
TF2_NOTE = ("computed_seq_len empty: TensorFlow2 BERT reads fixed-length records padded to 512, no binning "
            "(%s §3)" % FACTS)


def _append(r, note):
    r["notes"] = join_notes([r["notes"], note])


def lambda_nccl_p2p(r, bench_version, system):
    if r["num_gpus"] in ("", None) or int(r["num_gpus"]) < 2:
        return "", ""
    if bench_version == "v0":
        return "enabled", P2P_ENABLED_V0_WHY
    if bench_version == "v1-raw":  # pytorch/results/{2,4,8}xA100_40GB_SXM4_v1, committed 2022-11-19
        return "disabled", P2P_DISABLED_WHY % ("pytorch/results/%s, 2022-11-19" % system)
    if bench_version == "v1" and system in LAMBDA_V1_P2P:
        value, where = LAMBDA_V1_P2P[system]
        if value == "disabled":
            return value, P2P_DISABLED_WHY % where
        if value == "enabled":
            return value, P2P_ENABLED_V1_WHY % where
        return "", "nccl_p2p unknown: %s (%s §1 and the script history)" % (where, FACTS)
    return "", ""


def lambda_squad_seq(r):
    """Lambda BERT SQuAD rows: seq_len 384, tokens/s derived, seq_len_unknown flag cleared."""
    r["seq_len"] = SQUAD_SEQ
    r["quality_flag"] = join_flags(t for t in r["quality_flag"].split(";") if t != "seq_len_unknown")
    if r["samples_per_second"]:
        r["tokens_per_second"] = fmt(float(r["samples_per_second"]) * SQUAD_SEQ)
        r["step_time_derivation"] = "; ".join(
            p for p in (r["step_time_derivation"], "tokens_per_second derived = samples_per_second*seq_len "
                        "(seq_len %d from %s §2)" % (SQUAD_SEQ, FACTS)) if p)
    _append(r, SQUAD_NOTE)


def is_bert_phase2(r):
    return (r["source"] == "dle" and r["model"] == "bert-large" and r["task"] == "BERT pre-training"
            and str(r["seq_len"]) == "512")


AUTOMODEL = "NVIDIA-NeMo/Automodel@36044ad3d139363fb6c73c24af2e7c6b65ec52f6"
# NeMo AutoModel's performance summary prints EP "-" for its GPT-OSS rows; the benchmark config it
# links for each row sets the expert-parallel size (its `distributed.ep_size`). Row label -> (ep, config).
AUTOMODEL_EP = {
    "GPT-OSS 120B": (64, "examples/llm_benchmark/gpt_oss/gptoss_120b_te_deepep.yaml"),
    "GPT-OSS 20B": (8, "examples/llm_benchmark/gpt_oss/gptoss_20b_te_deepep.yaml"),
}
AUTOMODEL_EP_NOTE = ("ep %d derived: the performance summary prints EP \"-\" for this row; the benchmark config it links, "
                     "%s:%s, sets ep_size: %d (its local_batch_size differs from the table's LBS; the table's is used)")


def automodel_ep(r):
    ep, config = AUTOMODEL_EP.get(r["model_as_published"], (0, ""))
    if not ep or r["ep"] not in ("", None):
        return
    r["ep"] = ep
    _append(r, AUTOMODEL_EP_NOTE % (ep, AUTOMODEL, config, ep))


# The performance summary has no recompute column; the benchmark config it links for each row sets
# `distributed.activation_checkpointing` (default False, components/distributed/config.py). True wraps
# every block (or its attention, MLP and norms) in a checkpoint, so the backward redoes the whole forward:
# ptp's `full`. Row label, task, GPUs -> (activation_checkpointing, config); rows whose config does not
# set it keep an empty cell (not stated).
AUTOMODEL_RECOMPUTE = {
    ("Llama 3 70B", "pretrain", "64"): ("full", "examples/llm_benchmark/llama3_3/custom_llama3_1_70b_pretrain_benchmark_8nodes.yaml"),
    ("Llama 3 70B", "finetune_lora", "8"): ("full", "examples/llm_benchmark/llama3_3/custom_llama3_3_70b_instruct_peft_benchmark.yaml"),
    ("Llama 3 70B", "finetune_lora", "16"): ("full", "examples/llm_benchmark/llama3_3/custom_llama3_3_70b_instruct_peft_benchmark_2nodes.yaml"),
    ("Qwen2.5 32B", "finetune_lora", "8"): ("full", "examples/llm_benchmark/qwen/custom_qwen2_5_32b_peft_benchmark.yaml"),
    ("Qwen2.5 32B", "finetune_lora", "16"): ("full", "examples/llm_benchmark/qwen/custom_qwen2_5_32b_peft_benchmark_2nodes.yaml"),
    ("Nemotron V3 Nano 30B (26.02)", "pretrain", "8"): ("full", "examples/llm_benchmark/nemotron/nemotron_nano_v3_te_deepep.yaml"),
    ("Nemotron V3 Super 120B (26.02)", "pretrain", "64"): ("full", "examples/llm_benchmark/nemotron/nemotron_super_v3_te_deepep.yaml"),
    ("Qwen3 MoE 30B", "pretrain", "8"): ("full", "examples/llm_benchmark/qwen/qwen3_moe_30b_te_deepep.yaml"),
    ("GPT-OSS 120B", "pretrain", "64"): ("none", "examples/llm_benchmark/gpt_oss/gptoss_120b_te_deepep.yaml"),
}
AUTOMODEL_RECOMPUTE_NOTE = ("activation_checkpointing %s derived: the performance summary has no recompute column; "
                            "the benchmark config it links, %s:%s, sets distributed.activation_checkpointing: %s")


def automodel_recompute(r):
    value, config = AUTOMODEL_RECOMPUTE.get((r["model_as_published"], r["task"], str(r["num_gpus"])), ("", ""))
    if not value or r["activation_checkpointing"] not in ("", None):
        return
    r["activation_checkpointing"] = value
    _append(r, AUTOMODEL_RECOMPUTE_NOTE % (value, AUTOMODEL, config, "true" if value == "full" else "false"))


def describe_runs(runs):
    """Fill nccl_p2p / computed_seq_len (empty = unknown / not different from seq_len) in place.

    Lambda rows need `_system` and `_bench` (set by lambda_labs.build); they are removed here."""
    for r in runs:
        r["nccl_p2p"] = ""
        r["computed_seq_len"] = ""
        system, bench = r.pop("_system", ""), r.pop("_bench", "")
        if r["source"] == "lambda":
            value, why = lambda_nccl_p2p(r, bench, system)
            r["nccl_p2p"] = value
            if why:
                _append(r, "nccl_p2p %s: %s" % (value or "unknown", why) if value else why)
            if r["model"] in ("bert-base", "bert-large") and "SQuAD" in r["task"]:
                lambda_squad_seq(r)
        elif r["framework"].startswith("NeMo AutoModel"):
            automodel_ep(r)
            automodel_recompute(r)
        elif is_bert_phase2(r):
            if r["framework"] in ("PyTorch", "PaddlePaddle"):
                r["computed_seq_len"] = PHASE2_COMPUTED
                _append(r, PHASE2_NOTE % (PHASE2_COMPUTED, PHASE2_SCRIPT[r["framework"]], FACTS))
            elif r["framework"] == "TensorFlow2":
                _append(r, TF2_NOTE)
    return runs
