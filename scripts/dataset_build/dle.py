"""NVIDIA DeepLearningExamples (`dle`): shared/data/dle_throughput.csv -> runs.csv rows.

Maps published model / GPU / precision names to catalog ids, derives global batch, step time and
token rates, normalises the curator's free-text flags, and flags strong-scaling tables.
"""

import os
import re
from collections import defaultdict

from .catalog import BATCH_UNIT_MAP, MODEL_MAP, PRECISION_MAP, SM80_PLUS, map_gpu
from .common import join_flags, join_notes, published_ref, read_csv, to_int
from .runs_common import finish_run, normalize_source_flag, published_run, step_and_rates

SHARED_FILE = "dle_throughput.csv"


def dle_measurement(text):
    t = text.strip().lower()
    if not t:
        return "unknown"
    if "synthetic" in t:
        return "synthetic"
    if "steady" in t:
        return "steady_state"
    if "epoch" in t:
        return "epoch_average"
    if "iteration" in t or "steps" in t:
        return "steady_state"
    return "unknown"


def build(shared, stats=None):
    """runs.csv rows from <shared>/dle_throughput.csv; stats["dle_in"] = input rows."""
    src = read_csv(os.path.join(shared, SHARED_FILE))
    out = []
    for x in src:
        ref = published_ref(x)
        flags, notes = [], []
        model = MODEL_MAP.get(x["model"], "")
        if not model:
            flags.append("model_unmapped")
        if x["model"].startswith("DLRM"):
            notes.append("DLRM variant: %s" % x["model"][x["model"].find("(") + 1:-1])
        gpu = map_gpu(x["gpu"])
        if not gpu:
            flags.append("gpu_unmapped")
        prec = PRECISION_MAP[x["precision"]]
        if x["precision"] == "FP32" and gpu in SM80_PLUS:
            prec = "tf32"
            notes.append("published FP32; NGC container runs TF32 on sm_80+")
        bs = to_int(x["batch_size_per_gpu"])
        ga = to_int(x["grad_accum_steps"]) or 1
        ngpu = int(x["num_gpus"])
        seq = to_int(x["seq_len"])
        bunit_pub = x["batch_size_unit"]
        bunit = BATCH_UNIT_MAP[bunit_pub]
        unit = x["throughput_unit"]
        # 3D U-Net: table says img/s, batch counts volumes (the source treats them alike)
        if unit == "img/s" and bunit_pub == "volumes":
            unit = "volumes/s"
            notes.append("table header says img/s for a batch of volumes; read as volumes/s")
        if bunit_pub not in ("images", "sequences", "samples", ""):
            notes.append("batch unit as published: %s" % bunit_pub)
        r = published_run("dle", x, ref, model, prec, gpu, x["xla"])
        r["num_gpus"] = ngpu
        r["num_nodes"] = x["num_nodes"]
        r["gpus_per_node"] = x["gpus_per_node"]
        r["batch_size"] = "" if bs is None else bs
        r["batch_unit"] = bunit
        r["seq_len"] = "" if seq is None else seq
        r["grad_accum"] = ga
        r["global_batch_size"] = "" if bs is None else bs * ga * ngpu
        for c in ("tp", "pp", "cp", "vp", "ep", "sharding", "activation_checkpointing"):
            r[c] = ""
        r["dp"] = ngpu
        step_and_rates(r, x["throughput"], unit, seq)
        r["measurement"] = dle_measurement(x["measurement"])
        if x["measurement"]:
            notes.append("measurement as published: %s" % x["measurement"].strip())
        # flags
        if x["quality_flag"]:
            flags.extend(normalize_source_flag(x["quality_flag"]))
            notes.append("source flag: %s" % x["quality_flag"])
        bsrc = x["batch_size_source"]
        if bsrc and not bsrc.startswith("table"):
            flags.append("batch_inferred")
            notes.append("batch from: %s" % bsrc)
        elif bsrc and bsrc != "table":
            notes.append("batch from: %s" % bsrc)
        if bs is None:
            notes.append("no per-GPU sample batch published")
        if "typo" in x["notes"]:
            flags.append("batch_typo_suspected")
        # cross-check the computed global batch against batch totals quoted in the source notes
        if bs is not None:
            m = re.search(r"global batch=([0-9 ,]+)", x["notes"])
            if m:
                stated = [int(v) for v in re.findall(r"[0-9]+", m.group(1))]
                if bs * ga * ngpu not in stated:
                    flags.append("batch_inconsistent")
                    notes.append("batch_size*grad_accum*num_gpus = %d but the source states global batch %s"
                                 % (bs * ga * ngpu, " or ".join(str(v) for v in stated)))
            m = re.search(r"accumulated batch/GPU=([0-9]+)", x["notes"])
            if m and bs * ga != int(m.group(1)) and "typo" not in x["notes"]:
                flags.append("batch_inconsistent")
                notes.append("batch_size*grad_accum = %d but the source states accumulated batch/GPU %s"
                             % (bs * ga, m.group(1)))
        if "unit ambiguous" in x["notes"]:
            flags.append("unit_ambiguous")
        if seq is None and (bunit == "sequences" or unit == "tokens/s"):
            flags.append("seq_len_unknown")
        if x["variant"]:
            notes.append("variant: %s" % x["variant"])
        if not r["step_time_s"]:
            flags.append("no_step_time")
            notes.append("throughput as published: %s %s" % (x["throughput"], x["throughput_unit"]))
        notes.insert(0, x["notes"])
        notes.append("table: %s" % x["table_heading"])
        if x["container"]:
            notes.append("container %s" % x["container"])
        r["_flags"] = flags
        r["_notes"] = notes
        r["_group"] = (x["source_path"], x["table_heading"], x["model"], x["task"],
                       x["precision"], x["seq_len"], x["xla"], x["variant"])
        r["_bsrc"] = bsrc
        finish_run(r, x["variant"])
        out.append(r)
    mark_strong_scaling(out)
    for r in out:
        r["quality_flag"] = join_flags(r.pop("_flags"))
        r["notes"] = join_notes(r.pop("_notes"))
        r.pop("_group")
        r.pop("_bsrc")
    if stats is not None:
        stats["dle_in"] = len(src)
    return out


def mark_strong_scaling(rows):
    """Flag DLE rows whose table keeps the global batch fixed across GPU counts.

    A (table, model, task, precision, seq_len, xla, variant) group is strong-scaling
    when it has at least two GPU counts and every GPU count has the same set of
    global batch sizes (batch*grad_accum*num_gpus). Tables that list several
    per-GPU batches at each GPU count (weak scaling) do not qualify even if two
    products coincide. SIM states the fixed global batch in its README text.
    """
    groups = defaultdict(list)
    for r in rows:
        groups[r["_group"]].append(r)
    for g in groups.values():
        levels = defaultdict(set)
        for r in g:
            levels[r["num_gpus"]].add(r["global_batch_size"])
        readme_split = any("split over GPUs" in r["_bsrc"] for r in g)
        sets = list(levels.values())
        fixed = len(levels) >= 2 and all(s == sets[0] for s in sets) and "" not in sets[0]
        if not fixed and not readme_split:
            continue
        for r in g:
            peers = [s for s in g if s["num_gpus"] != r["num_gpus"]
                     and s["global_batch_size"] == r["global_batch_size"]]
            if readme_split or not any(s["batch_size"] == r["batch_size"] for s in peers):
                r["_flags"].append("strong_scaling")
                r["_notes"].append("strong scaling: global batch %s fixed across GPU counts, "
                                   "per-GPU micro-batch shrinks" % r["global_batch_size"])
            else:
                r["_flags"].append("strong_scaling_accum")
                r["_notes"].append("fixed global batch %s across GPU counts via gradient "
                                   "accumulation; micro-batch per GPU constant" % r["global_batch_size"])
