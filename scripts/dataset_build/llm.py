"""Published BF16/FP8 LLM training throughput (`llm`): shared/data/llm_bf16_fp8_throughput.csv -> runs.csv rows.

Keeps the file's parallel layout (tp/pp/cp/vp/ep/dp), maps sharding and activation checkpointing to
policy ids, derives total tokens/s and samples/s, and cross-checks the published step time.
"""

import os

from .catalog import LLM_MODEL_RENAME, PRECISION_MAP, model_id_allowed, map_gpu
from .common import fmt, join_flags, join_notes, published_ref, read_csv, to_int
from .runs_common import finish_run, published_run

SHARED_FILE = "llm_bf16_fp8_throughput.csv"


def llm_sharding(x):
    f = x["fsdp"]
    z = x["zero_stage"]
    if f.startswith("yes"):
        return "fsdp", ""
    if f == "FULL_SHARD":
        return "fsdp", ""
    if f == "SHARD_GRAD_OP":
        return "zero2", ""
    if f == "no (DDP)":
        return "none", ""
    if f.startswith("no (distributed optimizer"):
        return "zero1", "sharding: Megatron distributed optimizer (optimizer-state sharding) read as zero1"
    if z == "1":
        return "zero1", ""
    if f == "no":
        return "", "source says no FSDP; optimizer-state sharding not stated"
    return "", ""


def llm_ac(x):
    a = x["activation_checkpointing"]
    if a in ("no", "none"):
        return "none", ""
    if a == "full":
        return "full", ""
    if a.startswith("selective"):
        return "selective", ""
    if a.startswith("yes (FLOP count includes recomputation)"):
        return "full", "activation checkpointing: full recompute (Megatron 2021 FLOP formula with recompute)"
    if a == "yes":
        return "full", "activation checkpointing published as 'yes' (granularity not stated); read as full"
    return "", ""


def llm_model(canon):
    if canon in LLM_MODEL_RENAME:
        return LLM_MODEL_RENAME[canon]
    if model_id_allowed(canon):
        return canon
    return ""


def build(shared, stats=None):
    """runs.csv rows from <shared>/llm_bf16_fp8_throughput.csv; stats["llm_in"] = input rows."""
    src = read_csv(os.path.join(shared, SHARED_FILE))
    out = []
    for x in src:
        ref = published_ref(x)
        flags = [x["quality_flag"]]
        notes = []
        model = llm_model(x["model_canonical"])
        if not model:
            flags.append("model_unmapped")
            notes.append("source canonical id: %s (%s)" % (x["model_canonical"], x["model_type"]))
        gpu = map_gpu(x["gpu"])
        if not gpu:
            flags.append("gpu_unmapped")
        if x["gpu"] == "B200 (power limited)":
            flags.append("power_limited")
        if x["gpu"] == "H100 (SXM, 80GB assumed)":
            flags.append("gpu_inferred")
            notes.append("GPU variant not stated in source; SXM 80GB assumed by the curator")
        if x["gpu"].startswith("H100-SXM-96GB"):
            notes.append("H100 SXM 96GB HBM2e at 500 W power limit (Meta Grand Teton)")
        prec = PRECISION_MAP[x["precision"]]
        ngpu = int(x["num_gpus"])
        mbs = to_int(x["micro_batch_size"])
        dp = to_int(x["dp"])
        gbs = to_int(x["global_batch_size"])
        seq = to_int(x["seq_len"])
        ga = to_int(x["grad_accum_steps"])
        if ga is None and mbs and dp and gbs and gbs % (mbs * dp) == 0:
            ga = gbs // (mbs * dp)
            notes.append("grad_accum derived = global_batch_size/(batch_size*dp)")
        if mbs and ga and dp and gbs and mbs * ga * dp != gbs:
            flags.append("batch_inconsistent")
            notes.append("published micro-batch*grad_accum*dp = %d differs from published global "
                         "batch %d (global batch as published is used)" % (mbs * ga * dp, gbs))
        sharding, sn = llm_sharding(x)
        ac, an = llm_ac(x)
        # throughput
        unit = x["throughput_unit"]
        tps = ""
        deriv = []
        if unit.startswith("tokens/s (total"):
            tps = x["throughput"]
            if "derived" in unit:
                deriv.append("tokens_per_second derived from published step time (source)")
        elif x["tokens_per_second_per_gpu"]:
            tps = fmt(float(x["tokens_per_second_per_gpu"]) * ngpu)
            src_note = x["tokens_per_second_per_gpu_source"]
            deriv.append("tokens_per_second derived = tokens_per_second_per_gpu*num_gpus"
                         + ("" if src_note == "published" else " (per-GPU value %s)" % src_note))
        sps = ""
        if tps and seq:
            sps = fmt(float(tps) / seq)
            deriv.append("samples_per_second derived = tokens_per_second/seq_len")
        step = x["step_time_s"]
        if step:
            deriv.insert(0, "step_time_s from source (%s)" % x["step_time_source"])
            if tps and gbs and seq:
                implied = gbs * seq / float(tps)
                if abs(implied - float(step)) / float(step) > 0.02:
                    flags.append("step_time_inconsistent")
                    notes.append("global_batch_size*seq_len/tokens_per_second = %s s vs step_time_s %s"
                                 % (fmt(implied, 5), step))
        else:
            flags.append("no_step_time")
        if unit and not unit.startswith("tokens/s"):
            notes.append("throughput as published: %s %s" % (x["throughput"], unit))
        elif not tps:
            notes.append("throughput as published: %s %s" % (x["throughput"], unit))
        if x["mfu"]:
            notes.append("MFU %s%% (%s)" % (x["mfu"], x["mfu_peak_basis"]))
        if x["hfu"]:
            notes.append("HFU %s%%" % x["hfu"])
        notes.append(sn)
        notes.append(an)
        if x["framework_version"]:
            notes.append(x["framework_version"])
        notes.append("system: %s" % x["system"] if x["system"] else "")
        notes.append(x["notes"])
        r = published_run("llm", x, ref, model, prec, gpu)
        r["num_gpus"] = ngpu
        r["num_nodes"] = x["num_nodes"]
        r["gpus_per_node"] = x["gpus_per_node"]
        r["batch_size"] = "" if mbs is None else mbs
        r["batch_unit"] = "sequences"
        r["seq_len"] = "" if seq is None else seq
        r["grad_accum"] = "" if ga is None else ga
        r["global_batch_size"] = "" if gbs is None else gbs
        r["tp"] = x["tp"]
        r["pp"] = x["pp"]
        r["cp"] = x["cp"]
        r["vp"] = x["vp"]
        r["ep"] = x["ep"]
        r["dp"] = x["dp"]
        r["sharding"] = sharding
        r["activation_checkpointing"] = ac
        r["samples_per_second"] = sps
        r["tokens_per_second"] = tps
        r["step_time_s"] = step
        r["step_time_derivation"] = "; ".join(deriv)
        r["measurement"] = "unknown"
        if seq is None:
            flags.append("seq_len_unknown")
        r["quality_flag"] = join_flags(flags)
        r["notes"] = join_notes(notes)
        finish_run(r, "|".join([x["tp"], x["pp"], x["cp"], x["vp"], x["ep"], x["dp"],
                                x["fsdp"], x["activation_checkpointing"],
                                x["framework_version"], x["model_canonical"]]))
        out.append(r)
    if stats is not None:
        stats["llm_in"] = len(src)
    return out
