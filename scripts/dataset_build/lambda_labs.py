"""Lambda Labs deeplearning-benchmark (`lambda`): shared/data/lambda_throughput.csv -> runs.csv rows.

FP32 on sm_80+ is read as TF32 (NGC containers); per-GPU batch recomputed from the global batch where
the published cell is not an integer; step time from sample-counting throughput units.
"""

import os

from .catalog import MODEL_MAP, PRECISION_MAP, SAMPLE_UNITS, SM80_PLUS, map_gpu
from .common import join_flags, join_notes, read_csv
from .runs_common import finish_run, normalize_source_flag, published_run, step_and_rates

SHARED_FILE = "lambda_throughput.csv"


LAMBDA_V100_32_NOTE = ("gpu id choice: Lambda 'V100 32GB' mapped to v100-sxm2-32gb "
                       "(system names V100/2xV100/4xV100/8xV100 do not say PCIe; form factor not stated)")


def build(shared, stats=None):
    """runs.csv rows from <shared>/lambda_throughput.csv; stats["lambda_in"] = input rows."""
    src = read_csv(os.path.join(shared, SHARED_FILE))
    out = []
    for x in src:
        ref = "%s@%s:%s" % (x["source_repo"], x["source_commit"], x["source_path"])
        flags, notes = [], []
        model = MODEL_MAP.get(x["model"], "")
        if not model:
            flags.append("model_unmapped")
        gpu = map_gpu(x["gpu"])
        if not gpu:
            flags.append("gpu_unmapped")
        if x["gpu"] == "V100 32GB":
            notes.append(LAMBDA_V100_32_NOTE)
        if x["gpu"] == "A100 SXM4 40GB (AWS p4d)":
            notes.append("AWS p4d instance")
        ngpu = int(x["num_gpus"])
        prec = PRECISION_MAP[x["precision"]]
        if x["precision"] == "FP32":
            prec = "tf32" if gpu in SM80_PLUS else "fp32"
            if prec == "tf32":
                notes.append("published FP32; NGC container runs TF32 on sm_80+")
        if x["precision"] == "FP16_MASTER_WEIGHTS":
            notes.append("published FP16 (DLE ResNet-50 --fp16: half-precision model with FP32 "
                         "master weights, static loss scale; not torch AMP)")
        gbs = int(x["global_batch_size"])
        bs_pub = x["batch_size_per_gpu"]
        if bs_pub.isdigit():
            bs = int(bs_pub)
        else:
            bs = gbs // ngpu if gbs % ngpu == 0 else gbs / ngpu
            notes.append("batch_size = global_batch_size/num_gpus (per-GPU cell printed as %s)" % bs_pub)
        unit = x["throughput_unit"]
        sem = x["batch_size_semantics_in_source"]
        if x["model"] == "GNMT v2":
            bunit = "sequences"
        elif unit == "img/s":
            bunit = "images"
        elif unit == "sequences/s" or x["model"].startswith("Transformer-XL"):
            bunit = "sequences"
        else:
            bunit = "samples"
        r = published_run("lambda", x, ref, model, prec, gpu)
        r["num_gpus"] = ngpu
        r["num_nodes"] = x["num_nodes"]
        r["gpus_per_node"] = ngpu // int(x["num_nodes"])
        r["batch_size"] = bs
        r["batch_unit"] = bunit
        r["seq_len"] = ""
        r["grad_accum"] = 1
        r["global_batch_size"] = gbs
        for c in ("tp", "pp", "cp", "vp", "ep", "sharding", "activation_checkpointing"):
            r[c] = ""
        r["dp"] = ngpu
        sunit = unit if unit in SAMPLE_UNITS or unit == "tokens/s" else unit.split(" (")[0]
        step_and_rates(r, x["throughput"], sunit, None)
        if gbs != bs * ngpu and isinstance(bs, int):
            flags.append("batch_inconsistent")
        r["measurement"] = "unknown"
        if x["quality_flag"]:
            flags.extend(normalize_source_flag(x["quality_flag"]))
            notes.append("source flag: %s" % x["quality_flag"])
        if bunit == "sequences":
            flags.append("seq_len_unknown")
        if not r["step_time_s"]:
            flags.append("no_step_time")
            notes.append("throughput as published: %s %s" % (x["throughput"], unit))
        notes.append("system %s; benchmark_version %s; batch semantics in source: %s; batch from %s"
                     % (x["system"], x["benchmark_version"], sem, x["batch_source_path"]))
        if x["n_runs"]:
            notes.append("n_runs %s, min %s, max %s" % (x["n_runs"], x["throughput_min_run"],
                                                        x["throughput_max_run"]))
        notes.append(x["container"])
        notes.append(x["notes"])
        r["quality_flag"] = join_flags(flags)
        r["notes"] = join_notes(notes)
        finish_run(r, x["system"] + "|" + x["benchmark_version"])
        r["_system"], r["_bench"] = x["system"], x["benchmark_version"]  # for run_facts.describe_runs
        out.append(r)
    if stats is not None:
        stats["lambda_in"] = len(src)
    return out
