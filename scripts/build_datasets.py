#!/usr/bin/env python3
"""Build ptp's training tables from the published GPU measurements in shared/data.

Usage:
    python3 scripts/build_datasets.py --shared ../shared/data --out datasets/

Reads only files under --shared and writes only under --out:

    runs.csv           end-to-end training measurements (DLE, Lambda, LLM file)
    collectives.csv    all_reduce / send_recv timings (vidur, nccl-tests sweeps)
    ops.csv            per-kernel / per-operator timings (NeuSight, vidur MLP ops)
    README.md          schemas, row counts, exclusion philosophy, unmapped names
    MANIFEST.json      schema version, sha256 of every input and output
    sources/*.md       one page per source: origin, commit, license, caveats
    raw/<source>/...   verbatim copies of the small source files (see README)

Standard library only. Deterministic: same inputs give byte-identical outputs
(no timestamps, sorted iteration, fixed number formatting). No measured number
is changed; every derived value is marked as derived (step_time_derivation in
runs.csv, notes/README elsewhere).
"""

import argparse
import csv
import hashlib
import io
import json
import os
import re
import shutil
import sys
from collections import Counter, OrderedDict, defaultdict

SCHEMA_VERSION = "1"  # = ptp::kDatasetSchemaVersion (libpredict/vocab/dataset_schema.hpp)
REGEN_CMD = "python3 scripts/build_datasets.py --shared ../shared/data --out datasets/"

# ---------------------------------------------------------------------------
# output schemas
# ---------------------------------------------------------------------------
RUNS_COLUMNS = [
    "run_id", "source", "source_ref", "model", "model_as_published", "task",
    "framework", "xla", "precision", "precision_as_published", "gpu",
    "gpu_as_published", "num_gpus", "num_nodes", "gpus_per_node", "batch_size",
    "batch_unit", "seq_len", "grad_accum", "global_batch_size", "tp", "pp", "cp",
    "vp", "ep", "dp", "sharding", "activation_checkpointing",
    "samples_per_second", "tokens_per_second", "step_time_s",
    "step_time_derivation", "measurement", "quality_flag", "notes",
]
COLL_COLUMNS = [
    "point_id", "source", "source_ref", "collective", "size_bytes", "dtype",
    "ranks", "nodes", "ranks_per_node", "gpu", "fabric_intra", "fabric_inter",
    "algorithm", "time_s", "algbw_GBps", "busbw_GBps", "in_place", "status",
    "notes",
]
OPS_COLUMNS = [
    "point_id", "source", "source_ref", "op_class", "op_name", "m", "n", "k",
    "batch", "shape", "dtype_in", "dtype_compute", "dtype_out", "flops",
    "bytes", "gpu", "time_s", "time_s_min", "time_s_max", "reps", "status",
    "reason", "kernel_name", "notes",
]

# ---------------------------------------------------------------------------
# catalog mappings
# ---------------------------------------------------------------------------
ZOO_IDS = set("""resnet50 resnet101 resnext101-32x4d se-resnext101-32x4d
efficientnet-b0 efficientnet-b4 vit-b16 vit-l16 ssd300 maskrcnn-r50-fpn unet
bert-base bert-large electra-base electra-base-pretraining bart-large t5-base
transformer-big transformer-xl-base transformer-xl-large gnmt ncf dlrm tacotron2
waveglow gpt2 gpt2-medium gpt2-large gpt2-xl gpt3-xl gpt3-2.7b opt-1.3b llama2-7b
llama3-8b llama3-70b""".split())
LLM_EXTRA_IDS = set("""llama2-13b llama2-70b llama3.1-405b mpt-125m mpt-350m mpt-760m
mpt-1b mpt-3b mpt-7b mpt-13b mpt-30b mpt-70b gpt3-175b gpt3-5b gpt3-20b gpt3-125m
nemotron4-340b nemotron-8b nemotron-22b qwen2.5-7b qwen2.5-32b qwen3-8b""".split())

# DLE / Lambda published model names -> zoo id (anything not listed: unmapped)
MODEL_MAP = {
    "ResNet-50 v1.5": "resnet50",
    "ResNeXt-101 32x4d": "resnext101-32x4d",
    "SE-ResNeXt-101 32x4d": "se-resnext101-32x4d",
    "efficientnet-b0": "efficientnet-b0",
    "EfficientNet-B0": "efficientnet-b0",
    "efficientnet-b4": "efficientnet-b4",
    "EfficientNet-B4": "efficientnet-b4",
    "SSD300 v1.1 (ResNet-50 backbone)": "ssd300",
    "SSD300 v1.1 (ResNet-50)": "ssd300",
    "Mask R-CNN (ResNet-50 FPN)": "maskrcnn-r50-fpn",
    "U-Net Medical": "unet",
    "BERT-large": "bert-large",
    "BERT-base": "bert-base",
    "BioBERT (BERT-base)": "bert-base",
    "BART-large": "bart-large",
    "Transformer-XL Base": "transformer-xl-base",
    "Transformer-XL Large": "transformer-xl-large",
    "GNMT v2": "gnmt",
    "NCF": "ncf",
    "DLRM (small)": "dlrm",
    "DLRM (large)": "dlrm",
    "Tacotron2": "tacotron2",
    "WaveGlow": "waveglow",
}
# LLM file: model_canonical -> our id (identity for ids in the allowed lists)
LLM_MODEL_RENAME = {
    "gpt-2-124m": "gpt2",
    "gpt-2-350m": "gpt2-medium",
    "gpt-2-774m": "gpt2-large",
    "gpt-2-1558m": "gpt2-xl",
}
MEGATRON_FAMILY_RE = re.compile(r"^megatron-gpt-[0-9.]+[bt]-(2021|2024)family$")

GPU_MAP = {
    # DLE
    "A100-SXM4-80GB": "a100-sxm4-80gb",
    "A100-SXM4-40GB": "a100-sxm4-40gb",
    "V100-SXM2-16GB": "v100-sxm2-16gb",
    "V100-SXM2-32GB": "v100-sxm2-32gb",
    "V100-SXM3-32GB": "v100-sxm3-32gb",
    "V100-SXM3-32GB-H (450W)": "v100-sxm3-32gb-h",
    # Lambda
    "Quadro RTX 8000": "quadro-rtx-8000",
    "Quadro RTX 6000": "quadro-rtx-6000",
    "Quadro RTX 5000": "quadro-rtx-5000",
    "RTX 2080 Ti": "rtx-2080-ti",
    "V100 SXM2 16GB": "v100-sxm2-16gb",
    "V100 32GB": "v100-sxm2-32gb",  # see LAMBDA_V100_32_NOTE
    "RTX A6000": "rtx-a6000",
    "RTX A5500": "rtx-a5500",
    "RTX A5000": "rtx-a5000",
    "RTX A4500": "rtx-a4500",
    "RTX A4000": "rtx-a4000",
    "A100 SXM4 80GB": "a100-sxm4-80gb",
    "A100 SXM4 40GB": "a100-sxm4-40gb",
    "A100 SXM4 40GB (AWS p4d)": "a100-sxm4-40gb",
    "A100 PCIe 40GB": "a100-pcie-40gb",
    "A100 PCIe 80GB": "a100-pcie-80gb",
    "RTX 3090": "rtx-3090",
    "RTX 3080": "rtx-3080",
    "RTX 3070": "rtx-3070",
    "RTX 4090": "rtx-4090",
    "RTX 6000 Ada": "rtx-6000-ada",
    "A40": "a40",
    "A10": "a10",
    "GTX 1080 Ti": "gtx-1080-ti",
    "Titan RTX": "titan-rtx",
    "RTX 3080 Max-Q (laptop)": "rtx-3080-maxq",
    "RTX 2070 Max-Q (laptop)": "rtx-2070-maxq",
    "RTX 2080 Max-Q (laptop)": "rtx-2080-maxq",
    "RTX 2080 Super Max-Q (laptop)": "rtx-2080-super-maxq",
    # LLM file
    "H100-SXM-80GB": "h100-sxm5-80gb",
    "H100 (SXM, 80GB assumed)": "h100-sxm5-80gb",
    "H100-SXM-96GB-HBM2e (500W power limit)": "h100-sxm5-96gb",
    "H200-141GB": "h200-sxm-141gb",
    "A100-SXM-40GB": "a100-sxm4-40gb",
    "A100-SXM-80GB": "a100-sxm4-80gb",
    "B200": "b200-sxm-180gb",
    "B200 (power limited)": "b200-sxm-180gb",
    "B300": "b300-sxm",
    "GB200": "gb200",
    "GB300": "gb300",
    # nccl_allreduce.csv
    "H100-SXM5-80GB": "h100-sxm5-80gb",
    "H200-SXM-141GB": "h200-sxm-141gb",
    # NeuSight devices
    "NVIDIA A100 80GB PCIe": "a100-pcie-80gb",
    "NVIDIA A100-PCIE-40GB": "a100-pcie-40gb",
    "NVIDIA H100 80GB HBM3": "h100-sxm5-80gb",
    "Tesla V100-PCIE-32GB": "v100-pcie-32gb",
    "NVIDIA L4": "l4",
    "Tesla T4": "t4",
    "Tesla P4": "p4",
    "Tesla P100-PCIE-16GB": "p100-pcie-16gb",
    "H100-PCIe-80GB": "h100-pcie-80gb",
}
# published GPU names deliberately left without a catalog id
GPU_UNMAPPED_REASON = {
    "A100 (memory not stated)": "A100 memory size not stated in source",
    "NVIDIA Blackwell SM100 (not named; ~184 GiB implied by memory %)": "Blackwell SKU not named in source",
    "NVIDIA Blackwell SM100 (not named)": "Blackwell SKU not named in source",
}
# sm_80 or newer (Ampere, Ada, Hopper, Blackwell): NGC containers run "FP32" as TF32
SM80_PLUS = set("""a100-sxm4-80gb a100-sxm4-40gb a100-pcie-40gb a100-pcie-80gb a10 a40
rtx-a6000 rtx-a5500 rtx-a5000 rtx-a4500 rtx-a4000 rtx-6000-ada rtx-4090 rtx-3090
rtx-3080 rtx-3070 rtx-3080-maxq h100-sxm5-80gb h100-sxm5-96gb h200-sxm-141gb
b200-sxm-180gb b300-sxm gb200 gb300""".split())

LAMBDA_V100_32_NOTE = ("gpu id choice: Lambda 'V100 32GB' mapped to v100-sxm2-32gb "
                       "(system names V100/2xV100/4xV100/8xV100 do not say PCIe; form factor not stated)")

PRECISION_MAP = {
    "FP32": "fp32", "TF32": "tf32", "AMP_FP16": "amp_fp16", "AMP_BF16": "amp_bf16",
    "FP16_MASTER_WEIGHTS": "fp16", "BF16": "bf16", "FP8": "fp8", "FP4": "fp4",
    "FP16": "fp16",
}

# throughput units that count whole samples (images, sequences, samples ...)
SAMPLE_UNITS = {"img/s", "sequences/s", "samples/s", "volumes/s", "molecules/s",
                "items/s", "users/s"}
BATCH_UNIT_MAP = {
    "images": "images", "sequences": "sequences", "sentences": "sequences",
    "samples": "samples", "volumes": "samples", "molecules": "samples",
    "users": "samples", "": "",
}


# ---------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------
def sha1(text):
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def read_csv_with_lines(path):
    """Rows as dicts plus the 1-based physical line where each row starts."""
    out = []
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = None
        last_end = 0
        for rec in reader:
            start = last_end + 1
            last_end = reader.line_num
            if header is None:
                header = rec
                continue
            out.append((dict(zip(header, rec)), start))
    return out


def fmt(x, sig=7):
    """Deterministic formatting of a derived number."""
    if x is None or x == "":
        return ""
    x = float(x)
    if x != x or x in (float("inf"), float("-inf")):
        raise ValueError("non-finite derived value")
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return "%.*g" % (sig, x)


def ms_to_s(s):
    return fmt(float(s) / 1e3, 10)


def us_to_s(s):
    return fmt(float(s) / 1e6, 10)


def to_int(s):
    s = (s or "").strip()
    if s == "":
        return None
    try:
        return int(s)
    except ValueError:
        v = float(s)
        if v == int(v):
            return int(v)
        raise


def to_float(s):
    s = (s or "").strip()
    return None if s == "" else float(s)


def join_notes(parts):
    seen = []
    for p in parts:
        p = (p or "").strip()
        if p and p not in seen:
            seen.append(p)
    return "; ".join(seen)


def join_flags(flags):
    out = []
    for f in flags:
        for t in (f or "").split(";"):
            t = t.strip()
            if t and t not in out:
                out.append(t)
    return ";".join(out)


def write_csv(path, columns, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(columns)
        for r in rows:
            w.writerow([r.get(c, "") for c in columns])


def map_gpu(published):
    gid = GPU_MAP.get(published, "")
    return gid


# ---------------------------------------------------------------------------
# runs.csv
# ---------------------------------------------------------------------------
def normalize_source_flag(text):
    """Free-text DLE/Lambda flags -> tokens (original text kept in notes)."""
    toks = []
    for part in text.split(";"):
        p = part.strip()
        if not p:
            continue
        if p.startswith("AMP slower than"):
            toks.append("amp_slower_than_fp32_as_published")
        elif "implies" in p and "linear scaling" in p:
            toks.append("suspect_superlinear_scaling")
        elif p.startswith("poor scaling"):
            toks.append("poor_scaling_as_published")
        elif p.startswith("suspect: AMP/FP32 throughput ratio"):
            toks.append("suspect_amp_fp32_ratio")
        else:
            toks.append("source_flag_other")
    return toks


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


def finish_run(r, key_extra):
    r["_key"] = "|".join([r["source"], r["source_ref"], r["model_as_published"],
                          r["task"], r["gpu_as_published"], r["precision_as_published"],
                          r["precision"], str(r["num_gpus"]), str(r["batch_size"]),
                          str(r["grad_accum"]), str(r["global_batch_size"]),
                          str(r["seq_len"]), r["xla"], key_extra])
    return r


def step_and_rates(r, thr, unit, seq_len):
    """Fill samples/tokens per second and step time for DLE/Lambda rows."""
    deriv = []
    sps = tps = step = ""
    batch_unit = r["batch_unit"]
    gbs = r["global_batch_size"]
    if unit in SAMPLE_UNITS and batch_unit in ("images", "sequences", "samples"):
        sps = thr  # as published (base units)
        if seq_len:
            tps = fmt(float(thr) * seq_len)
            deriv.append("tokens_per_second derived = samples_per_second*seq_len")
        if gbs not in ("", None):
            step = fmt(float(gbs) / float(thr), 6)
            deriv.insert(0, "step_time_s = global_batch_size/samples_per_second; "
                            "global_batch_size = batch_size*grad_accum*num_gpus")
    elif unit == "tokens/s":
        tps = thr  # as published
        if seq_len and batch_unit == "sequences" and gbs not in ("", None):
            sps = fmt(float(thr) / seq_len)
            step = fmt(float(gbs) * seq_len / float(thr), 6)
            deriv.append("samples_per_second derived = tokens_per_second/seq_len; "
                         "step_time_s = global_batch_size*seq_len/tokens_per_second")
    r["samples_per_second"] = sps
    r["tokens_per_second"] = tps
    r["step_time_s"] = step
    r["step_time_derivation"] = "; ".join(deriv)


def build_dle(path):
    src = read_csv(path)
    out = []
    for x in src:
        ref = "%s@%s:%s" % (x["source_repo"], x["source_commit"], x["source_path"])
        if x["source_line"]:
            ref += ":" + x["source_line"]
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
        r = OrderedDict()
        r["source"] = "dle"
        r["source_ref"] = ref
        r["model"] = model
        r["model_as_published"] = x["model"]
        r["task"] = x["task"]
        r["framework"] = x["framework"]
        r["xla"] = x["xla"]
        r["precision"] = prec
        r["precision_as_published"] = x["precision_as_published"]
        r["gpu"] = gpu
        r["gpu_as_published"] = x["gpu"]
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
    return out, len(src)


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


def build_lambda(path):
    src = read_csv(path)
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
        r = OrderedDict()
        r["source"] = "lambda"
        r["source_ref"] = ref
        r["model"] = model
        r["model_as_published"] = x["model"]
        r["task"] = x["task"]
        r["framework"] = x["framework"]
        r["xla"] = ""
        r["precision"] = prec
        r["precision_as_published"] = x["precision_as_published"]
        r["gpu"] = gpu
        r["gpu_as_published"] = x["gpu"]
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
        out.append(r)
    return out, len(src)


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
    if canon in ZOO_IDS or canon in LLM_EXTRA_IDS or MEGATRON_FAMILY_RE.match(canon):
        return canon
    return ""


def build_llm(path):
    src = read_csv(path)
    out = []
    for x in src:
        ref = "%s@%s:%s" % (x["source_repo"], x["source_commit"], x["source_path"])
        if x["source_line"]:
            ref += ":" + x["source_line"]
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
        r = OrderedDict()
        r["source"] = "llm"
        r["source_ref"] = ref
        r["model"] = model
        r["model_as_published"] = x["model"]
        r["task"] = x["task"]
        r["framework"] = x["framework"]
        r["xla"] = ""
        r["precision"] = prec
        r["precision_as_published"] = x["precision_as_published"]
        r["gpu"] = gpu
        r["gpu_as_published"] = x["gpu"]
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
    return out, len(src)


def assign_run_ids(rows):
    counts = Counter(r["_key"] for r in rows)
    seen = set()
    for r in rows:
        key = r["_key"]
        if counts[key] > 1:
            key += "|" + r["samples_per_second"] + "|" + r["tokens_per_second"] + "|" + r["notes"]
        rid = "%s-%s" % (r["source"], sha1(key)[:10])
        if rid in seen:
            raise SystemExit("run_id collision: %s" % key)
        seen.add(rid)
        r["run_id"] = rid
        del r["_key"]


def dedupe(rows, columns, id_col):
    """Drop rows that are identical in every output column except the id."""
    seen = set()
    out = []
    dropped = 0
    for r in rows:
        sig = tuple(str(r.get(c, "")) for c in columns if c != id_col)
        if sig in seen:
            dropped += 1
            continue
        seen.add(sig)
        out.append(r)
    return out, dropped


# ---------------------------------------------------------------------------
# collectives.csv
# ---------------------------------------------------------------------------
VIDUR_TOPO = {
    "a100_dgx": ("a100-sxm4-80gb", "nvlink3",
                 "vidur topology a100_dgx: DGX A100 node, 8x A100 80GB on NVSwitch (per vidur profiling README)"),
    "h100_dgx": ("h100-sxm5-80gb", "nvlink4",
                 "vidur topology h100_dgx: DGX H100 node, 8x H100 on NVSwitch; 80GB per vidur device config"),
    "a100_pairwise_nvlink": ("a100-pcie-80gb", "nvlink3",
                             "vidur topology a100_pairwise_nvlink: Azure NC96ads_A100_v4, 4x A100 80GB, NVLink "
                             "only inside GPU pairs, pairs joined by PCIe (per vidur profiling README); PCIe form "
                             "factor inferred from the pairwise-bridge topology, not stated by vidur"),
    "h100_pairwise_nvlink": ("", "nvlink4",
                             "vidur topology h100_pairwise_nvlink: 4 H100 per node, NVLink only inside GPU pairs; "
                             "H100 variant not documented (pairwise bridges imply PCIe 80GB or NVL 94GB cards), so gpu is left empty"),
    "a40_pairwise_nvlink": ("a40", "nvlink-bridge",
                            "vidur topology a40_pairwise_nvlink: A40 pairs joined by NVLink bridges"),
}


def build_vidur_collectives(shared):
    tidy_path = os.path.join(shared, "vidur_collectives_tidy.csv")
    tidy = read_csv(tidy_path)
    # index raw network files for line-level provenance
    raw_index = {}
    for topo in sorted(VIDUR_TOPO):
        for coll in ("all_reduce", "send_recv"):
            p = os.path.join(shared, "vidur", "profiling", "network", topo, coll + ".csv")
            if not os.path.exists(p):
                continue
            for row, line in read_csv_with_lines(p):
                k = (topo, coll, row["num_workers"], row["devices_per_node"], row["size"],
                     row["time_stats.%s.median" % coll], row["time_stats.%s.min" % coll],
                     row["time_stats.%s.max" % coll], row["time_stats.%s.mean" % coll])
                raw_index.setdefault(k, []).append(line)
    out = []
    unmatched = 0
    used = Counter()
    identical_send_recv = files_identical(
        os.path.join(shared, "vidur/profiling/network/a100_pairwise_nvlink/send_recv.csv"),
        os.path.join(shared, "vidur/profiling/network/h100_pairwise_nvlink/send_recv.csv"))
    seen_rows = set()
    tidy_dups = 0
    for x in tidy:
        sig = tuple(x.items())
        if sig in seen_rows:
            tidy_dups += 1
            continue
        seen_rows.add(sig)
        topo, coll = x["topology"], x["collective"]
        if not vidur_collective_kept(x["size_bytes"]):
            continue
        k = (topo, coll, x["num_workers"], x["devices_per_node"], x["size_bytes"],
             x["time_ms_median"], x["time_ms_min"], x["time_ms_max"], x["time_ms_mean"])
        lines = raw_index.get(k, [])
        idx = used[k]
        used[k] += 1
        line = lines[idx] if idx < len(lines) else (lines[-1] if lines else None)
        if line is None:
            unmatched += 1
        ref = "%s@%s:%s" % (x["source_repo"], x["source_commit"], x["source_path"])
        if line:
            ref += ":%d" % line
        gpu, fab_intra, _ = VIDUR_TOPO[topo]
        ranks = int(x["num_workers"])
        rpn = int(x["devices_per_node"])
        nodes = ranks // rpn
        notes = ["topology %s" % topo]
        fab_inter = ""
        if nodes > 1:
            fab_inter = "unknown"
            notes.append("inter-node fabric not documented")
        if topo.endswith("pairwise_nvlink") and rpn > 2:
            notes.append("spans NVLink pairs (PCIe between pairs)")
        if topo == "h100_pairwise_nvlink" and coll == "send_recv" and identical_send_recv:
            notes.append("suspicious: source file byte-identical to a100_pairwise_nvlink/send_recv.csv")
        if topo == "a40_pairwise_nvlink" and rpn == 2:
            notes.append("suspicious: intra-node pair far below NVLink-bridge bandwidth")
        notes.append("median; min/max/mean ms %s/%s/%s" % (x["time_ms_min"], x["time_ms_max"], x["time_ms_mean"]))
        r = OrderedDict()
        r["source"] = "vidur"
        r["source_ref"] = ref
        r["collective"] = coll
        r["size_bytes"] = x["size_bytes"]
        r["dtype"] = {"float16": "fp16"}.get(x["dtype"], x["dtype"])
        r["ranks"] = ranks
        r["nodes"] = nodes
        r["ranks_per_node"] = rpn
        r["gpu"] = gpu
        r["fabric_intra"] = fab_intra
        r["fabric_inter"] = fab_inter
        r["algorithm"] = ""
        r["time_s"] = ms_to_s(x["time_ms_median"])
        r["algbw_GBps"] = x["algbw_GBps"]
        r["busbw_GBps"] = x["busbw_GBps"]
        r["in_place"] = "1" if coll == "all_reduce" else ""
        r["status"] = "ok"
        r["notes"] = join_notes(notes)
        out.append(r)
    return out, len(tidy), unmatched, tidy_dups


def files_identical(a, b):
    try:
        with open(a, "rb") as fa, open(b, "rb") as fb:
            return fa.read() == fb.read()
    except OSError:
        return False


def nccl_fabrics(x):
    ic = x["interconnect"]
    gpu = x["gpu"]
    if "bridge" in ic.lower():
        intra = "nvlink-bridge"
    elif gpu.startswith("A100"):
        intra = "nvlink3"
    else:
        intra = "nvlink4"
    inter = ""
    if int(x["num_nodes"]) > 1:
        if "RoCEv2 100Gbps x16" in ic:
            inter = "roce-100x16"
        elif "RoCEv2 200Gbps x16" in ic:
            inter = "roce-200x16"
        elif "A3 Mega" in ic:
            inter = "gcp-a3mega"
        else:
            inter = "unknown"
    return intra, inter


def build_nccl(shared):
    src = read_csv_with_lines(os.path.join(shared, "nccl_allreduce.csv"))
    out = []
    for x, line in src:
        if x["source_commit"]:
            ref = "%s@%s:%s" % (x["source_repo"], x["source_commit"], x["source_path"])
        else:
            ref = "%s:%s" % (x["source_repo"], x["source_path"])
        gpu = map_gpu(x["gpu"])
        intra, inter = nccl_fabrics(x)
        dtype = {"float32": "fp32"}.get(x["dtype"], "")
        base_notes = ["nccl_allreduce.csv line %d" % line, "system: %s" % x["system"],
                      "interconnect: %s" % x["interconnect"], "tool: %s" % x["tool"],
                      "NCCL %s" % x["nccl"]]
        if not gpu:
            base_notes.append("gpu as published %s (%s)" % (x["gpu"], GPU_UNMAPPED_REASON.get(x["gpu"], "unmapped")))
        if not dtype:
            base_notes.append("dtype: %s" % x["dtype"])
        if inter == "gcp-a3mega":
            base_notes.append("A3 Mega inferred from the repository name; inter-node fabric unverified")
        algorithm = ""
        if "NVLS at >=2MiB" in x["interconnect"] and int(x["size_bytes"]) >= 2 * 1024 * 1024:
            algorithm = "nvls"
            base_notes.append("algorithm nvls per the source's statement (NVLS at >= 2 MiB)")
        base_notes.append(x["notes"])
        for in_place, tcol, acol, bcol in ((0, "time_us_out_of_place", "algbw_GBps_out_of_place",
                                            "busbw_GBps_out_of_place"),
                                           (1, "time_us_in_place", "algbw_GBps_in_place",
                                            "busbw_GBps_in_place")):
            if not x[tcol]:
                continue
            r = OrderedDict()
            r["source"] = "nccl-tests"
            r["source_ref"] = ref
            r["collective"] = x["collective"]
            r["size_bytes"] = x["size_bytes"]
            r["dtype"] = dtype
            r["ranks"] = x["num_gpus"]
            r["nodes"] = x["num_nodes"]
            r["ranks_per_node"] = x["gpus_per_node"]
            r["gpu"] = gpu
            r["fabric_intra"] = intra
            r["fabric_inter"] = inter
            r["algorithm"] = algorithm
            r["time_s"] = us_to_s(x[tcol])
            r["algbw_GBps"] = x[acol]
            r["busbw_GBps"] = x[bcol]
            r["in_place"] = str(in_place)
            r["status"] = "ok"
            r["notes"] = join_notes(base_notes)
            r["_line"] = line
            out.append(r)
    return out, len(src)


def assign_point_ids(rows, keyfn, prefix):
    seen = {}
    for r in rows:
        pid = "%s-%s" % (prefix, sha1(keyfn(r))[:12])
        if pid in seen:
            raise SystemExit("point_id collision: %s" % keyfn(r))
        seen[pid] = True
        r["point_id"] = pid


# ---------------------------------------------------------------------------
# ops.csv
# ---------------------------------------------------------------------------
NEUSIGHT_COMMIT = "6945927d9afcca2b9daf021f8395e53edc5b4eef"
VIDUR_COMMIT = "7d47513363ec447a741ac5e47241580b47724fbf"
# elementwise ops in NeuSight elem.csv: number of tensors read+written per element
ELEM_TENSORS = {"add": 3, "mul": 3, "div": 3, "pow": 3,
                "addu": 2, "mulu": 2, "divu": 2, "powu": 2,
                "relu": 2, "tanh": 2, "gelu": 2}
ARRAY_RE = re.compile(r"Array<char\*, (\d+)>")


def build_neusight(shared):
    base = os.path.join(shared, "neusight", "data", "dataset", "test")
    out = []
    nin = 0
    for fname in ("bmm", "linear", "elem", "ln", "softmax"):
        path = os.path.join(base, fname + ".csv")
        for x, line in read_csv_with_lines(path):
            nin += 1
            op = x["OPName"]
            ref = "test/%s.csv:%d" % (fname, line)
            dev = x["Device"]
            gpu = map_gpu(dev)
            notes = []
            if not gpu:
                notes.append("device %s; gpu_unmapped (%s)" % (dev, GPU_UNMAPPED_REASON.get(dev, "no catalog id")))
            m = n = k = batch = ""
            flops = nbytes = ""
            if fname in ("bmm", "linear"):
                B, M, N, K = (int(x[c]) for c in ("B", "M", "N", "K"))
                if fname == "bmm":
                    op_class = "batched_gemm"
                    m, n, k, batch = M, N, K, B
                else:
                    op_class = "gemm"
                    m, n, k, batch = B * M, N, K, 1
                flops = 2 * m * n * k * batch
                nbytes = 4 * batch * (m * k + k * n + m * n)
                shape = "B=%d;M=%d;N=%d;K=%d" % (B, M, N, K)
                kernels = [s for s in x["Kernels"].split(";") if s]
                if len(kernels) > 1:
                    notes.append("%d kernels launched" % len(kernels))
            else:
                B, H = int(x["B"]), int(x["H"])
                m, n = B, H
                nel = B * H
                shape = "B=%d;H=%d" % (B, H)
                if fname == "elem":
                    op_class = "elementwise"
                    nt = ELEM_TENSORS[op]
                    a = ARRAY_RE.search(x["Kernel Name"])
                    if a and int(a.group(1)) != nt:
                        raise SystemExit("unexpected tensor count for %s: %s" % (op, x["Kernel Name"]))
                    flops = nel
                    nbytes = 4 * nt * nel
                elif fname == "ln":
                    op_class = "layernorm"
                    flops = 8 * nel
                    nbytes = 4 * (2 * nel + 2 * H)
                else:
                    op_class = "softmax"
                    flops = 5 * nel
                    nbytes = 4 * 2 * nel
            r = OrderedDict()
            r["source"] = "neusight"
            r["source_ref"] = ref
            r["op_class"] = op_class
            r["op_name"] = op
            r["m"], r["n"], r["k"], r["batch"] = m, n, k, batch
            r["shape"] = shape
            r["dtype_in"] = r["dtype_compute"] = r["dtype_out"] = "fp32"
            r["flops"] = flops
            r["bytes"] = nbytes
            r["gpu"] = gpu
            r["time_s"] = ms_to_s(x["Latency"])
            r["time_s_min"] = ""
            r["time_s_max"] = ""
            r["reps"] = ""
            r["status"] = "ok"
            r["reason"] = ""
            # Template arguments dropped: they triple the file size and carry no timing information.
            r["kernel_name"] = x["Kernel Name"].split("<")[0]
            r["notes"] = join_notes(notes)
            r["_key"] = ref + "|" + op
            out.append(r)
    return out, nin


VIDUR_GPU = {
    "a100": ("a100-sxm4-80gb", "vidur 'a100' compute profile: A100 80GB; form factor not stated "
                               "(vidur uses the same compute data for DGX-SXM and Azure PCIe nodes); read as SXM4"),
    "h100": ("h100-sxm5-80gb", "vidur 'h100' compute profile: H100 80GB; form factor not stated; read as SXM5"),
    "a40": ("a40", ""),
}
VIDUR_OPS = ["emb", "input_layernorm", "attn_pre_proj", "attn_rope", "attn_post_proj",
             "post_attention_layernorm", "mlp_up_proj", "mlp_act", "mlp_down_proj", "add"]
# norm type is not in mlp.csv; from the models' HF configs (phi-2 uses LayerNorm)
VIDUR_LAYERNORM_MODELS = {"microsoft/phi-2"}


def vidur_op_shape(op, T, H, nh, nkv, I, V, gated, tp, post_attn_norm, model):
    """Return (op_class, m, n, k, flops, bytes) for one vidur MLP-profile op (fp16)."""
    hd = H // nh
    e = 2  # bytes per fp16 element
    if op in ("attn_pre_proj", "attn_post_proj", "mlp_up_proj", "mlp_down_proj"):
        if op == "attn_pre_proj":
            m, k, n = T, H, (nh + 2 * nkv) * hd // tp
        elif op == "attn_post_proj":
            m, k, n = T, nh * hd // tp, H
        elif op == "mlp_up_proj":
            m, k, n = T, H, (2 if gated else 1) * I // tp
        else:
            m, k, n = T, I // tp, H
        return "gemm", m, n, k, 2 * m * n * k, e * (m * k + k * n + m * n)
    if op in ("input_layernorm", "post_attention_layernorm"):
        nel = T * H
        if model in VIDUR_LAYERNORM_MODELS:
            return "layernorm", T, H, "", 8 * nel, e * (2 * nel + 2 * H)
        return "layernorm", T, H, "", 4 * nel, e * (2 * nel + H)
    if op == "emb":
        return "embedding", T, H, "", 0, e * 2 * T * H + 8 * T
    if op == "attn_rope":
        nel = T * (nh + nkv) // tp * hd
        return "elementwise", T, (nh + nkv) // tp * hd, "", 3 * nel, e * (2 * nel + T * hd) + 8 * T
    if op == "mlp_act":
        out_el = T * I // tp
        if gated:
            return "elementwise", T, I // tp, "", 2 * out_el, e * 3 * out_el
        return "elementwise", T, I // tp, "", out_el, e * 2 * out_el
    if op == "add":
        nel = T * H
        if post_attn_norm:
            return "elementwise", T, H, "", nel, e * 3 * nel
        return "elementwise", T, H, "", 2 * nel, e * 4 * nel
    raise KeyError(op)


def is_power_of_two(v):
    return v > 0 and (v & (v - 1)) == 0


def vidur_tokens_kept(tokens):
    """Row-selection rule (keeps the repository small): vidur profiles ~450 token counts per op
    with near-identical neighbours; we keep the log-spaced ones (powers of two). No measured value is changed; the dropped rows are still in the source repository."""
    return is_power_of_two(tokens)


def vidur_collective_kept(size_bytes):
    """Same rule for collectives: keep power-of-two message sizes (about 1 in 15 vidur sizes)."""
    return is_power_of_two(int(size_bytes))


def build_vidur_ops(shared):
    base = os.path.join(shared, "vidur", "profiling", "compute")
    out = []
    nfiles = 0
    nlines = 0
    for dev in sorted(os.listdir(base)):
        for org in sorted(os.listdir(os.path.join(base, dev))):
            for name in sorted(os.listdir(os.path.join(base, dev, org))):
                path = os.path.join(base, dev, org, name, "mlp.csv")
                if not os.path.exists(path):
                    continue
                nfiles += 1
                model = "%s/%s" % (org, name)
                gpu, gnote = VIDUR_GPU[dev]
                rows = read_csv_with_lines(path)
                header = list(rows[0][0].keys()) if rows else []
                ops = [o for o in VIDUR_OPS if "time_stats.%s.median" % o in header]
                post_attn_norm = "time_stats.post_attention_layernorm.median" in header
                for x, line in rows:
                    nlines += 1
                    T = int(x["num_tokens"])
                    if not vidur_tokens_kept(T):
                        continue
                    tp = int(x["num_tensor_parallel_workers"])
                    H, nh, nkv = int(x["n_embd"]), int(x["n_head"]), int(x["n_kv_head"])
                    I, V = int(x["n_expanded_embd"]), int(x["vocab_size"])
                    gated = x["use_gated_mlp"] == "True"
                    ref = "%s/%s/mlp.csv:%d" % (dev, model, line)
                    for op in ops:
                        med = x["time_stats.%s.median" % op]
                        if med == "":
                            continue
                        oc, m, n, k, flops, nbytes = vidur_op_shape(
                            op, T, H, nh, nkv, I, V, gated, tp, post_attn_norm, model)
                        r = OrderedDict()
                        r["source"] = "vidur"
                        r["source_ref"] = ref
                        r["op_class"] = oc
                        r["op_name"] = op
                        r["m"], r["n"], r["k"], r["batch"] = m, n, k, 1
                        r["shape"] = "model=%s;num_tokens=%d;tp=%d" % (model, T, tp)
                        r["dtype_in"] = r["dtype_compute"] = r["dtype_out"] = "fp16"
                        r["flops"] = flops
                        r["bytes"] = nbytes
                        r["gpu"] = gpu
                        r["time_s"] = ms_to_s(med)
                        r["time_s_min"] = ms_to_s(x["time_stats.%s.min" % op])
                        r["time_s_max"] = ms_to_s(x["time_stats.%s.max" % op])
                        r["reps"] = ""
                        r["status"] = "ok"
                        r["reason"] = ""
                        r["kernel_name"] = ""
                        r["notes"] = ""  # GPU-id caveat documented in sources/vidur.md
                        r["_key"] = ref + "|" + op
                        out.append(r)
    return out, nfiles, nlines


# ---------------------------------------------------------------------------
# raw copies
# ---------------------------------------------------------------------------
RAW_FILES = [
    ("dle", "dle_throughput.csv"),
    ("lambda", "lambda_throughput.csv"),
    ("llm", "llm_bf16_fp8_throughput.csv"),
    ("nccl-tests", "nccl_allreduce.csv"),
    ("shared", "README.md"),  # the curator's provenance notes for all of the above
]
RAW_LIMIT_BYTES = 12 * 1000 * 1000


def copy_raw(shared, out):
    raw = os.path.join(out, "raw")
    if os.path.isdir(raw):
        shutil.rmtree(raw)
    total = 0
    copied = []
    for src_name, rel in RAW_FILES:
        total += os.path.getsize(os.path.join(shared, rel))
    if total > RAW_LIMIT_BYTES:
        raise SystemExit("raw copies would exceed the size budget: %d bytes" % total)
    for src_name, rel in RAW_FILES:
        dst = os.path.join(raw, src_name, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(os.path.join(shared, rel), dst)
        copied.append((src_name, rel, os.path.getsize(dst)))
    return copied, total


# ---------------------------------------------------------------------------
# documentation
# ---------------------------------------------------------------------------
RUNS_DOC = [
    ("run_id", "stable id `<source>-<first 10 hex of sha1(configuration key)>`; the key is source_ref, "
               "model/task/GPU/precision as published, precision, num_gpus, batch fields, seq_len, xla and "
               "source-specific discriminators (DLE variant, Lambda system, LLM parallel layout), never the "
               "measured value unless two rows share every configuration field", "-"),
    ("source", "`dle` | `lambda` | `llm`", "-"),
    ("source_ref", "`repo@commit:path:line` of the published value (Lambda: `repo@commit:path`; LLM "
                   "image tables keep the README line that references the image)", "-"),
    ("model", "model zoo id, empty when the model is not in the zoo (flag `model_unmapped`)", "-"),
    ("model_as_published", "model name as in the shared file", "-"),
    ("task", "task as in the shared file", "-"),
    ("framework", "framework as in the shared file", "-"),
    ("xla", "`yes`/`no` for DLE TensorFlow tables that say so, else empty", "-"),
    ("precision", "policy id: fp32 tf32 fp16 bf16 amp_fp16 amp_bf16 fp8 fp4", "-"),
    ("precision_as_published", "precision wording of the source", "-"),
    ("gpu", "GPU catalog id; empty when not mappable (flag `gpu_unmapped`)", "-"),
    ("gpu_as_published", "GPU name as in the shared file", "-"),
    ("num_gpus", "GPUs in the run", "count"),
    ("num_nodes", "nodes in the run", "count"),
    ("gpus_per_node", "GPUs per node", "count"),
    ("batch_size", "micro-batch per GPU (one forward/backward)", "batch_unit"),
    ("batch_unit", "`images` | `sequences` | `samples` | `tokens` (what batch_size counts); empty if unknown", "-"),
    ("seq_len", "sequence length when known", "tokens"),
    ("grad_accum", "micro-batches per optimizer step (1 when the source states none)", "count"),
    ("global_batch_size", "samples per optimizer step = batch_size*grad_accum*dp (LLM file: as published)", "batch_unit"),
    ("tp", "tensor-parallel degree (LLM file only)", "count"),
    ("pp", "pipeline-parallel degree (LLM file only)", "count"),
    ("cp", "context-parallel degree (LLM file only)", "count"),
    ("vp", "virtual pipeline stages (LLM file only; empty = not used/stated)", "count"),
    ("ep", "expert-parallel degree (LLM file only; empty = dense or not stated)", "count"),
    ("dp", "data-parallel ranks incl. FSDP shards = GPUs/(tp*pp*cp); num_gpus for DLE/Lambda", "count"),
    ("sharding", "`none` | `zero1` | `zero2` | `zero3` | `fsdp` | `hsdp`; empty = not stated (LLM file only)", "-"),
    ("activation_checkpointing", "`none` | `selective` | `full`; empty = not stated (LLM file only)", "-"),
    ("samples_per_second", "throughput over all GPUs in samples (images/sequences/samples)", "samples/s"),
    ("tokens_per_second", "throughput over all GPUs in tokens (published or derived, see step_time_derivation)", "tokens/s"),
    ("step_time_s", "seconds per optimizer step (grad_accum micro-batches on every GPU)", "s"),
    ("step_time_derivation", "how step_time_s and any derived rate were obtained", "-"),
    ("measurement", "`epoch_average` | `steady_state` | `synthetic` | `unknown`", "-"),
    ("quality_flag", "`;`-joined flags (source flags plus ours, see below); empty = none", "-"),
    ("notes", "free text: source notes, published text for normalised fields, derivation caveats", "-"),
]
COLL_DOC = [
    ("point_id", "stable id `<source-prefix>-<12 hex of sha1(source_ref|collective|size|ranks|nodes|ranks_per_node|in_place)>`", "-"),
    ("source", "`vidur` | `nccl-tests`", "-"),
    ("source_ref", "`repo@commit:path[:line]` (the NCCL issue report has no commit)", "-"),
    ("collective", "`all_reduce` | `send_recv`", "-"),
    ("size_bytes", "message size per rank", "bytes"),
    ("dtype", "`fp16` | `fp32`; empty when not stated", "-"),
    ("ranks", "participating GPUs", "count"),
    ("nodes", "nodes spanned", "count"),
    ("ranks_per_node", "GPUs per node", "count"),
    ("gpu", "GPU catalog id; empty when not mappable (see notes)", "-"),
    ("fabric_intra", "intra-node link: `nvlink3` | `nvlink4` | `nvlink-bridge`", "-"),
    ("fabric_inter", "inter-node fabric: `roce-100x16` | `roce-200x16` | `gcp-a3mega` | `unknown`; empty for single-node", "-"),
    ("algorithm", "NCCL algorithm when the source states it (`nvls`), else empty", "-"),
    ("time_s", "time of one collective (vidur: median; nccl-tests: reported average)", "s"),
    ("algbw_GBps", "size_bytes/time as given by the source or curator", "GB/s (1e9)"),
    ("busbw_GBps", "algbw*2(n-1)/n for all_reduce; = algbw for send_recv", "GB/s (1e9)"),
    ("in_place", "1 in-place, 0 out-of-place, empty for send_recv", "-"),
    ("status", "`ok` for every row", "-"),
    ("notes", "topology, system, tool, NCCL version, caveats", "-"),
]
OPS_DOC = [
    ("point_id", "stable id `<source-prefix>-<12 hex of sha1(source_ref|op_name)>`", "-"),
    ("source", "`neusight` | `vidur`", "-"),
    ("source_ref", "`repo@commit:path:line` of the measurement row", "-"),
    ("op_class", "`gemm` | `batched_gemm` | `elementwise` | `layernorm` | `softmax` | `embedding`", "-"),
    ("op_name", "operator name in the source (NeuSight OPName, vidur op)", "-"),
    ("m", "GEMM rows (tokens/rows for non-GEMM ops)", "elements"),
    ("n", "GEMM output columns (hidden/row width for non-GEMM ops)", "elements"),
    ("k", "GEMM reduction dimension; empty for non-GEMM ops", "elements"),
    ("batch", "GEMM batch count (1 for plain GEMM and vidur ops; empty for NeuSight non-GEMM ops)", "count"),
    ("shape", "shape as in the source (`B=;M=;N=;K=`, `B=;H=`, or `model=;num_tokens=;tp=`)", "-"),
    ("dtype_in", "input dtype", "-"),
    ("dtype_compute", "compute dtype", "-"),
    ("dtype_out", "output dtype", "-"),
    ("flops", "floating-point operations, derived (formulas below)", "FLOP"),
    ("bytes", "compulsory DRAM traffic, derived (formulas below)", "bytes"),
    ("gpu", "GPU catalog id; empty when not mappable (device in notes)", "-"),
    ("time_s", "kernel/operator time (NeuSight: latency; vidur: median)", "s"),
    ("time_s_min", "minimum over repetitions (vidur only)", "s"),
    ("time_s_max", "maximum over repetitions (vidur only)", "s"),
    ("reps", "repetitions; empty (not stated by either source)", "count"),
    ("status", "`ok` for every row", "-"),
    ("reason", "reason for a non-ok status; empty", "-"),
    ("kernel_name", "launched kernel (NeuSight only)", "-"),
    ("notes", "device as published, GPU-id caveats, multi-kernel launches", "-"),
]

FLAG_DOC = [
    ("model_unmapped", "model not in the zoo; `model` empty"),
    ("gpu_unmapped", "GPU has no catalog id (unnamed, memory not stated, or not in catalog); `gpu` empty"),
    ("gpu_inferred", "GPU variant assumed by the curator (Megatron-LM H100 rows: SXM 80GB assumed)"),
    ("power_limited", "GPU ran under a power limit (torchtitan B200)"),
    ("seq_len_unknown", "sequence model whose sequence length is not in the data"),
    ("strong_scaling", "DLE table keeps the global batch fixed; the per-GPU micro-batch shrinks with GPU count"),
    ("strong_scaling_accum", "DLE table keeps the global batch fixed through gradient accumulation; the micro-batch is constant"),
    ("batch_inferred", "DLE batch not printed in the table (taken from configs/scripts/README text)"),
    ("batch_typo_suspected", "DLE BERT multi-node table prints 126 as TF32 micro-batch (probably 128); kept as printed"),
    ("batch_inconsistent", "batch_size*grad_accum*dp differs from a global or accumulated batch the source states (DLE notes, LLM GBS)"),
    ("unit_ambiguous", "the source is unclear about the throughput unit"),
    ("step_time_inconsistent", "LLM file: published/derived step time disagrees >2% with gbs*seq/tokens_per_second"),
    ("no_step_time", "step time not derivable (token/frame units without seq_len, or no batch); row kept"),
    ("amp_slower_than_fp32_as_published", "DLE: AMP row slower than FP32/TF32 in the same table (source flag)"),
    ("suspect_superlinear_scaling", "DLE: 1-GPU row implies >1.15x linear scaling (source flag)"),
    ("poor_scaling_as_published", "DLE: very poor scaling vs 1 GPU (source flag)"),
    ("suspect_amp_fp32_ratio", "Lambda: AMP/FP32 ratio <0.8 or >6, probably a broken run (source flag)"),
    ("(LLM file flags)", "copied as-is: proxy_reduced_layers, precision_inferred, transcribed_from_image, "
                         "seq_len_from_default_config, gbs_derived, unit_inferred_per_gpu, unit_ambiguous, "
                         "model_unnamed, gpu_unnamed, gpu_count_ambiguous, label_typo, source_cell_typo, "
                         "dp_inconsistent_in_source, approximate, implausible_exceeds_peak, moe_or_hybrid, "
                         "tp_pp_split_inferred, tokens_derived, experimental, mfu_only, parallelism_unknown, "
                         "precision_from_example_script, moe"),
]


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |")
    return "\n".join(out)


def counter_table(counter, header):
    rows = sorted(counter.items(), key=lambda kv: (-kv[1], str(kv[0])))
    return md_table(header, [(k if k != "" else "(empty)", v) for k, v in rows])


def cross_table(rows, key_a, key_b, title_a):
    cols = sorted(set(r[key_b] for r in rows))
    c = Counter((r[key_a], r[key_b]) for r in rows)
    keys = sorted(set(r[key_a] for r in rows), key=lambda k: (-sum(c[(k, b)] for b in cols), k))
    body = []
    for k in keys:
        body.append([k if k != "" else "(empty)"] + [c[(k, b)] or "" for b in cols]
                    + [sum(c[(k, b)] for b in cols)])
    return md_table([title_a] + cols + ["total"], body)


def write_readme(out, runs, colls, ops, stats):
    L = []
    L.append("# ptp datasets (schema %s)" % SCHEMA_VERSION)
    L.append("")
    L.append("Tidy tables of published GPU measurements for `ptp-train`. Every number comes from "
             "`shared/data/` (see `sources/*.md` for origin, commit, license and caveats). No measured "
             "number was edited; derived values are marked (`step_time_derivation` in runs.csv, "
             "formulas below for ops/*.csv, notes in collectives.csv). Nothing is brought in from elsewhere.")
    L.append("")
    L.append("**Generated file: do not edit by hand.** Regenerate from the repository root with")
    L.append("")
    L.append("    " + REGEN_CMD)
    L.append("")
    L.append("The build is deterministic (same inputs, byte-identical outputs); `MANIFEST.json` records "
             "the sha256 of every input and output and the schema version.")
    L.append("")
    L.append("| file | rows | what |")
    L.append("|---|---:|---|")
    L.append("| `runs.csv` | %d | end-to-end training throughput, one row per published configuration |" % len(runs))
    L.append("| `collectives.csv` | %d | all_reduce / send_recv time vs message size |" % len(colls))
    L.append("| `ops/*.csv` | %d | per-kernel / per-operator times with shapes, FLOPs and bytes |" % len(ops))
    L.append("")
    L.append("## Exclusion philosophy")
    L.append("")
    L.append("Rows are never dropped here, except exact duplicates (%s). Doubtful rows are kept and "
             "*flagged* in `quality_flag` (runs) or described in `notes`; the C++ trainer decides what to "
             "exclude by rules on these flags, so the rules stay visible, versioned and testable. Typical "
             "rules: drop `no_step_time` (no target), `model_unmapped`/`gpu_unmapped` (no features), and "
             "consider down-weighting `batch_inferred`, `strong_scaling`, `approximate`, "
             "`transcribed_from_image`, `suspect_*`, `*_as_published` anomalies and `moe_or_hybrid`."
             % stats["dedup_text"])
    L.append("")
    L.append("## runs.csv")
    L.append("")
    L.append(md_table(["column", "meaning", "unit"], RUNS_DOC))
    L.append("")
    L.append("Step time is always per **optimizer step**: `global_batch_size / samples_per_second` "
             "(or `global_batch_size*seq_len / tokens_per_second`), covering all gradient-accumulation "
             "micro-steps on every GPU. For DLE BERT pre-training tables that list the accumulated batch, "
             "`batch_size` is the micro-batch and `grad_accum` the accumulation count, so the step covers "
             "the whole accumulated batch. LLM-file step times are the file's own (its `step_time_source` "
             "is quoted in `step_time_derivation`).")
    L.append("")
    L.append("Precision policy: DLE FP32 (V100 only) -> fp32, TF32 -> tf32; Lambda FP32 on sm_80+ -> tf32 "
             "(note `published FP32; NGC container runs TF32 on sm_80+`), on older GPUs -> fp32; "
             "AMP -> amp_fp16/amp_bf16; Lambda FP16_MASTER_WEIGHTS -> fp16; LLM BF16/FP8/FP4 -> bf16/fp8/fp4 "
             "(precision_as_published keeps the detail, e.g. MXFP8, NVFP4, FSDP PURE).")
    L.append("")
    L.append("Measurement (DLE): 'averaged over an entire epoch'/'N epochs' -> epoch_average; 'steady state' "
             "and 'averaged over N iterations/steps' (with or without stated warm-up exclusion) -> "
             "steady_state; empty or other text -> unknown (the published text is in notes). No DLE row "
             "states synthetic data in its measurement text. Lambda and LLM rows: unknown.")
    L.append("")
    L.append("### quality_flag values")
    L.append("")
    L.append(md_table(["flag", "meaning"], FLAG_DOC))
    L.append("")
    L.append("Flag counts:")
    L.append("")
    fc = Counter()
    for r in runs:
        for t in r["quality_flag"].split(";"):
            if t:
                fc[(r["source"], t)] += 1
    flag_rows = sorted(set(t for _, t in fc), key=lambda t: (-sum(fc[(s, t)] for s in ("dle", "lambda", "llm")), t))
    L.append(md_table(["flag", "dle", "lambda", "llm"],
                      [[t] + [fc[(s, t)] or "" for s in ("dle", "lambda", "llm")] for t in flag_rows]))
    L.append("")
    L.append("### Row counts")
    L.append("")
    L.append("By source and precision:")
    L.append("")
    L.append(cross_table(runs, "precision", "source", "precision"))
    L.append("")
    L.append("By GPU and source (empty = unmapped):")
    L.append("")
    L.append(cross_table(runs, "gpu", "source", "gpu"))
    L.append("")
    L.append("By model and source (empty = unmapped):")
    L.append("")
    L.append(cross_table(runs, "model", "source", "model"))
    L.append("")
    with_step = Counter(r["source"] for r in runs if r["step_time_s"])
    L.append("Rows with a step time: %s." % ", ".join("%s %d of %d" % (s, with_step[s], stats["runs_by_source"][s])
                                                     for s in ("dle", "lambda", "llm")))
    L.append("")
    L.append("### Unmapped names")
    L.append("")
    L.append("Models (runs.csv, `model` empty):")
    L.append("")
    um = Counter((r["source"], r["model_as_published"]) for r in runs if not r["model"])
    L.append(md_table(["source", "model as published", "rows"],
                      [(s, m, n) for (s, m), n in sorted(um.items(), key=lambda kv: (kv[0][0], -kv[1], kv[0][1]))]))
    L.append("")
    L.append("GPUs (runs.csv, `gpu` empty):")
    L.append("")
    ug = Counter((r["source"], r["gpu_as_published"]) for r in runs if not r["gpu"])
    L.append(md_table(["source", "gpu as published", "rows"],
                      [(s, g, n) for (s, g), n in sorted(ug.items())]))
    L.append("")
    L.append("## collectives.csv")
    L.append("")
    L.append(md_table(["column", "meaning", "unit"], COLL_DOC))
    L.append("")
    L.append("Fabric ids: `nvlink3` = A100 NVLink (DGX NVSwitch, or NVLink pairs in vidur's "
             "a100_pairwise_nvlink), `nvlink4` = H100/H200 NVLink, `nvlink-bridge` = PCIe cards joined by an "
             "NVLink bridge. **Pairwise topologies**: vidur's `*_pairwise_nvlink` nodes have NVLink only inside "
             "GPU pairs; 4-GPU collectives there cross PCIe between pairs, so `fabric_intra` alone does not "
             "describe them - use the topology name in `source_ref`/`notes`. Multi-node vidur rows "
             "(a100_dgx with fewer devices per node than workers, and send_recv with one device per node) "
             "have `fabric_inter=unknown`: vidur does not document that link.")
    L.append("")
    L.append("vidur topologies (the topology is in each row's `source_ref` path and `notes`):")
    L.append("")
    L.append(md_table(["topology", "gpu", "fabric_intra", "description"],
                      [(t, g or "(empty)", f, d) for t, (g, f, d) in sorted(VIDUR_TOPO.items())]))
    L.append("")
    L.append(cross_table(colls, "gpu", "source", "gpu"))
    L.append("")
    cc = Counter((r["source"], r["collective"], r["ranks"], r["nodes"]) for r in colls)
    L.append(md_table(["source", "collective", "ranks", "nodes", "rows"],
                      [(a, b, c, d, n) for (a, b, c, d), n in sorted(cc.items(), key=lambda kv: (kv[0][0], kv[0][1], int(kv[0][2]), int(kv[0][3])))]))
    L.append("")
    L.append("## ops/*.csv")
    L.append("")
    L.append("One file per source and op class (`<source>-<op_class>.csv`, same columns); `ptp-train` reads every CSV "
             "in the folder, and `ptp-profile` output can be dropped in beside them. `source_ref` here is relative to "
             "the source repository at the commit in `sources/<source>.md` and MANIFEST.json "
             "(NeuSight: `data/dataset/`; vidur: `data/profiling/compute/`).")
    L.append("")
    L.append(md_table(["column", "meaning", "unit"], OPS_DOC))
    L.append("")
    L.append("### FLOP and byte formulas (all derived)")
    L.append("")
    L.append("Element size e = 4 bytes (NeuSight, FP32) or 2 bytes (vidur, FP16). Every elementary "
             "pointwise function (add, mul, div, pow, relu, tanh, gelu, silu, exp) counts as 1 FLOP. "
             "Bytes are compulsory traffic: each input read once, each output written once, no cache reuse "
             "counted; biases ignored.")
    L.append("")
    L.append("* GEMM / batched GEMM: flops = 2*m*n*k*batch; bytes = e*batch*(m*k + k*n + m*n). NeuSight "
             "linear: m = B*M (B is always 1), n = N, k = K; bmm: batch = B.")
    L.append("* NeuSight elementwise (n_el = B*H): flops = n_el; bytes = e*t*n_el, t = 3 tensors for "
             "tensor-tensor ops (add, mul, div, pow), 2 for ops with a scalar or unary ops (addu, mulu, divu, "
             "powu, relu, tanh, gelu); t was checked against the `Array<char*, t>` of the kernel name.")
    L.append("* NeuSight layernorm (rows B, width H): flops = 8*B*H (mean 1, variance 3, normalise 2, affine 2); "
             "bytes = e*(2*B*H + 2*H).")
    L.append("* NeuSight softmax: flops = 5*B*H (max, subtract, exp, sum, divide); bytes = e*2*B*H.")
    L.append("* vidur (T = num_tokens, H = n_embd, nh/nkv = heads, hd = H/nh, I = n_expanded_embd, tp = "
             "tensor-parallel workers; per-worker shapes as vidur's ColumnParallel/RowParallel layers, "
             "dims read from the columns of each mlp.csv): attn_pre_proj m=T, k=H, n=(nh+2*nkv)*hd/tp; "
             "attn_post_proj m=T, k=nh*hd/tp, n=H; mlp_up_proj m=T, k=H, n=(2 if gated else 1)*I/tp; "
             "mlp_down_proj m=T, k=I/tp, n=H.")
    L.append("* vidur non-GEMM: input/post_attention_layernorm: RMSNorm flops = 4*T*H, bytes = e*(2*T*H + H); "
             "phi-2 LayerNorm flops = 8*T*H, bytes = e*(2*T*H + 2*H) (norm type is not in mlp.csv; taken from "
             "the models' published configs). mlp_act gated (SiLU-and-mul): flops = 2*T*I/tp, bytes = "
             "e*3*T*I/tp; phi-2 GELU: flops = T*I/tp, bytes = e*2*T*I/tp. attn_rope: n_el = T*(nh+nkv)/tp*hd, "
             "flops = 3*n_el, bytes = e*(2*n_el + T*hd) + 8*T (q/k in place, cos/sin cache, int64 positions). "
             "add: residual add T*H (flops T*H, bytes e*3*T*H); phi-2 (no post-attention norm column: "
             "attn + mlp + residual) flops 2*T*H, bytes e*4*T*H. emb: flops 0, bytes e*2*T*H + 8*T "
             "(row gather + write + int64 ids; vocabulary-shard masking ignored).")
    L.append("")
    L.append("GPU-id caveats: vidur `a100`/`h100` compute profiles are 80GB parts of unstated form factor, read "
             "as a100-sxm4-80gb / h100-sxm5-80gb; NeuSight `NVIDIA H100 80GB HBM3` is read as h100-sxm5-80gb. "
             "Every emitted GPU id exists in `configs/gpus/` (checked by the build when run inside the repo).")
    L.append("")
    L.append(cross_table(ops, "gpu", "source", "gpu"))
    L.append("")
    oc = Counter((r["source"], r["op_class"]) for r in ops)
    L.append(md_table(["source", "op_class", "rows"], [(a, b, n) for (a, b), n in sorted(oc.items())]))
    L.append("")
    L.append("## raw/")
    L.append("")
    L.append("Verbatim copies of the source files used (%s bytes in total, budget ~12 MB):" % stats["raw_total"])
    L.append("")
    for s, rel, size in stats["raw_copied"]:
        L.append("* `raw/%s/%s` (%d bytes)" % (s, rel, size))
    L.append("")
    L.append("Not copied (too large; they stay verbatim in `shared/data/` and are fully reflected in ops/*.csv): "
             "`vidur/profiling/compute/**/mlp.csv` (20 files, ~13.5 MB), `neusight/data/dataset/test/*.csv` "
             "(5 files, ~6.5 MB), and vidur's raw `network/*` files (the tidy file above holds the same numbers "
             "and collectives.csv cites their lines). The Lambda copy is internal research data (no LICENSE "
             "upstream): do not redistribute.")
    L.append("")
    with open(os.path.join(out, "README.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(L))


def write_source_docs(out, stats, runs, colls, ops):
    d = os.path.join(out, "sources")
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    rc = stats["runs_by_source"]

    def cnt(rows, src, key):
        return counter_table(Counter(r[key] for r in rows if r["source"] == src), [key, "rows"])

    docs = {}
    docs["dle"] = """# Source: NVIDIA DeepLearningExamples (`dle`)

* **Repository:** NVIDIA/DeepLearningExamples, commit `729963dd47e7c8bd462ad10bfac7a7b0b604e6dd` (2024-04-04).
* **Paths:** the "Training performance results" tables of 54 model `README.md` files under `PyTorch/`,
  `TensorFlow/`, `TensorFlow2/`, `MxNet/`, `PaddlePaddle/`, `DGLPyTorch/`, `CUDA-Optimized/`; each row's
  file and 1-based line are in `source_ref` (12 PyTorch Mask R-CNN rows have no line in the shared file).
* **Shared file:** `shared/data/dle_throughput.csv` ({nin} rows) -> `runs.csv` ({nout} rows, source `dle`).
* **License:** per model directory (mostly Apache-2.0, a few BSD, one MIT). Only published numbers were copied.

## How the rows were made (by the shared-data curator)
A parser pulled every training-performance markdown table, cleaned cells (thousand separators, `img/s`, M/k
suffixes; `M samples/s` and `molecules/ms` converted to base units) and split multi-valued cells into one row per
precision; all tables were reviewed by hand. Accuracy, time-to-train, inference and speedup-only tables, the
family summary READMEs and tables in HTML comments were left out.

## What we did
* `batch_size` = the table's micro-batch per GPU; `grad_accum` from the shared file (1 when absent);
  `global_batch_size = batch_size*grad_accum*num_gpus`. PyTorch/PaddlePaddle BERT pre-training tables list the
  *accumulated* batch per GPU; the shared file already split it into micro-batch and accumulation steps.
* `step_time_s = global_batch_size / samples_per_second` for sample-counting units (img/s, sequences/s,
  samples/s, volumes/s, molecules/s, items/s, users/s). The shared file's `time_per_iteration_ms` is one
  micro-step and is not used. tokens/s, mel-frames/s and audio-samples/s rows get no step time (`no_step_time`):
  Transformer-XL and GNMT publish tokens/s with batches in sequences/sentences of unknown length.
* `tokens_per_second` for sequence throughput with a known seq_len is derived (samples/s*seq_len).
* Strong scaling: a table (per model, task, precision, seq_len, xla, variant) whose every GPU count has the same
  set of global batches is strong-scaling. Rows whose micro-batch shrinks with the GPU count are flagged
  `strong_scaling` (NCF, DLRM large, SIM, Wide&Deep, VAE-CF, UNet Industrial, FastPitch A100, HiFi-GAN); rows that
  keep the micro-batch and shrink the accumulation are flagged `strong_scaling_accum` (BERT-large pre-training in
  TF1/TF2/PyTorch/PaddlePaddle, QuartzNet, FastPitch V100, part of HiFi-GAN V100). Tables that list several
  per-GPU batches at each GPU count are weak-scaling even when two batch*GPU products coincide.
* Where the source notes state a global batch (`global batch=...`) or an accumulated batch per GPU and it differs
  from batch_size*grad_accum*num_gpus, the row is flagged `batch_inconsistent` and both numbers are in notes (e.g.
  TF1 BERT DGX-2 FP32 phase 1 on 1/4/8 GPUs: 32*8192, 32*2048, 32*1024 give 262144 vs the stated 65536; PyTorch
  BERT 32 GPUs with grad_accum 18). step_time_s still uses the product, so treat these rows with care.
* Free-text source flags were normalised to tokens; the original text is in `notes` (`source flag: ...`).

## Caveats (from the shared README, in short)
* Most numbers are epoch averages with real data (data loading included); some are steady-state (TF BERT,
  Jasper); see `measurement` and the published text in `notes`.
* TF ConvNets use XLA; TF2 SIM and Wide&Deep give XLA on/off as separate rows (`xla`).
* Several recommender and speech tables are strong-scaling (fixed global batch).
* Batch sizes not printed in the table were taken from the repo's configs/scripts/README commands at the same
  commit (`batch_inferred`); they may differ from the original run.
* `126` as the TF32 micro-batch in the PyTorch/Paddle BERT multi-node tables is reproduced as printed (probably
  128; `batch_typo_suspected`).
* Source `quality_flag` marks 1-GPU rows implying >1.15x linear scaling, very poor scaling, and AMP slower than
  FP32/TF32 (Tacotron2 on A100, NCF, VAE-CF, W&D, VNet small models). None of the numbers were changed.
* Two A100 tables head a column FP32 while the rest says TF32 (GPUNet, TF2 BERT SQuAD); stored as tf32.

## Row counts in runs.csv
By precision:

{prec}

By GPU:

{gpu}

By model (empty = unmapped):

{model}
"""
    docs["lambda"] = """# Source: Lambda Labs deeplearning-benchmark (`lambda`)

* **Repository:** lambdal/deeplearning-benchmark, commit `aa5addb6a53675a649a80036dad548f1c27cbcc4` (2025-12-17).
* **Paths:** `pytorch/pytorch-train-throughput-{{fp16,fp32}}.csv` with batch sizes from
  `pytorch/pytorch-train-bs-{{fp16,fp32}}.csv` (v1), and raw logs `pytorch/results/<system>/<task>/*.txt` with batch
  sizes from `pytorch/scripts/config_v0/` or `config_v1/` (v0, v1-raw). The exact path is in `source_ref`
  (path only, no line), the batch-size file in `notes`.
* **Shared file:** `shared/data/lambda_throughput.csv` ({nin} rows) -> `runs.csv` ({nout} rows, source `lambda`).
* **License: none.** The repository has no LICENSE file, so redistribution terms are unclear. **Internal
  research use only, not for redistribution** (this applies to `raw/lambda/` and the `lambda` rows of runs.csv).

## Provenance classes (`benchmark_version`, in notes)
* `v1`: copied from Lambda's curated CSVs (container nvcr.io/nvidia/pytorch:22.09-py3 per compile script).
* `v1-raw` and `v0`: re-derived by the curator from raw logs with the same regexes and last-match-then-mean
  method as `pytorch/scripts/compile_results_pytorch.py` (checked against the curated CSV on 3 systems). v0 ran on
  pytorch 20.01/20.10 containers (2020-21).
* The shared README also describes `v2` rows (NGC 24.x/25.x, H100 fleet testing); **the shared file contains no
  v2 rows**, so none are here.

## What we did
* Precision: FP32 on sm_80+ GPUs (A100, A10, A40, RTX A-series, RTX 30xx/40xx, RTX 6000 Ada) -> `tf32` with the
  note "published FP32; NGC container runs TF32 on sm_80+"; FP32 on V100/Turing/Pascal -> `fp32`;
  AMP/FP16 -> `amp_fp16`; FP16_MASTER_WEIGHTS (DLE ResNet-50 `--fp16`, half model + FP32 master weights) -> `fp16`.
* `V100 32GB` -> `v100-sxm2-32gb`: the systems (V100, 2xV100, 4xV100, 8xV100) do not say PCIe; noted per row.
* `batch_size` per GPU, `global_batch_size` over all GPUs (the source states which one was configured; NCF per-GPU
  cells printed in scientific notation are recomputed as global/num_gpus).
* Step time = global batch / throughput for img/s, sequences/s and samples/s. Transformer-XL and GNMT (tokens/s),
  Tacotron2 (mel frames/s) and WaveGlow (audio samples/s) have no step time (`no_step_time`); their sequence
  lengths are not in the data (`seq_len_unknown` for sequence models, BERT SQuAD included).
* Measurement is `unknown` (last logged throughput per run, averaged over runs; data pipeline not documented).

## Caveats
* "FP32" on Ampere-or-newer in NGC containers most likely used TF32 tensor cores; this cannot be told from logs.
* Batch sizes were chosen per GPU to fill memory, so they vary by system.
* Source `quality_flag` (AMP/FP32 ratio < 0.8 or > 6) marks probably broken runs (`suspect_amp_fp32_ratio`).
* Single node only (num_nodes = 1).

## Row counts in runs.csv
By precision:

{prec}

By GPU:

{gpu}

By model:

{model}
"""
    docs["llm"] = """# Source: published BF16/FP8 LLM training throughput (`llm`)

* **Shared file:** `shared/data/llm_bf16_fp8_throughput.csv` ({nin} rows) -> `runs.csv` ({nout} rows, source `llm`).
  Each row's repository, commit, path and line are in `source_ref`.

| repository | license | path(s) | commit |
|---|---|---|---|
| NVIDIA-NeMo/Megatron-Bridge | Apache-2.0 | `docs/performance-summary.md`, `docs/performance-summary-archive.md` | `067f987df03b8355b03192d88d70f1709fedf51a` |
| mosaicml/llm-foundry | Apache-2.0 | `scripts/train/benchmarking/README.md` | `8c8dd48f72168c5d51e2f7b151595892a8fba43d` |
| pytorch/torchtitan | BSD-3-Clause | `benchmarks/*.md`, `torchtitan/components/quantization/{{mxfp8,nvfp4}}.md` | `b5bcd76c66d0acb1a08b176d9639425bc55e0b2a` |
| NVIDIA/Megatron-LM | BSD-style NVIDIA license | `images/model_table.png`, `images/cases_april2021.png`, `README.md` | `d98e8a64ddf3...`, `b83477a3e8b4...`, `fd5cfec0ba60...` |
| NVIDIA/NeMo | Apache-2.0 | `docs/source/performance/performance_summary.md` | `8e3d65dcfe3504689bfc5b6e67d502780aacad41` |
| NVIDIA-NeMo/Automodel | Apache-2.0 | `docs/performance-summary.mdx` | `36044ad3d139363fb6c73c24af2e7c6b65ec52f6` |
| karpathy/llm.c | MIT | `scripts/run_gpt2_*.sh`, `scripts/run_gpt3_125M.sh` | `f1e2ace651495b74ae22d45d1723443fd00ecd3a` |

Only figures were copied, no code. The curator checked every published value against the cited file/commit/line.

## What we did
* `model`: the file's `model_canonical` when it is an allowed id (zoo + LLM ids + `megatron-gpt-*-<year>family`),
  `gpt-2-124m/350m/774m/1558m` -> `gpt2/-medium/-large/-xl`; MoE/hybrid and other models are unmapped (canonical id
  kept in notes).
* `precision`: BF16 -> bf16 (Megatron/NeMo style: BF16 compute with FP32 master weights; llm-foundry "PURE"),
  AMP_BF16 -> amp_bf16 (FSDP mixed precision DEFAULT), FP8 -> fp8 (incl. MXFP8, FP8-CS, torchao float8), FP4 ->
  fp4 (NVFP4), AMP_FP16 -> amp_fp16.
* GPU: `H100 (SXM, 80GB assumed)` -> h100-sxm5-80gb + `gpu_inferred`; `B200 (power limited)` -> b200-sxm-180gb +
  `power_limited`; `H100-SXM-96GB-HBM2e (500W power limit)` -> h100-sxm5-96gb; `A100 (memory not stated)` and the
  two unnamed Blackwell SM100 parts -> empty + `gpu_unmapped`.
* `batch_size` = micro-batch (sequences), `global_batch_size` as published; `grad_accum` as published or derived
  as GBS/(MBS*dp) when integral (noted). Rows where MBS*GA*dp != GBS are flagged `batch_inconsistent`.
* `tokens_per_second` (all GPUs): published total (llm-foundry), total derived by the curator from the published
  step time (llm.c), or per-GPU*num_gpus (derived here).
  `samples_per_second` = tokens_per_second/seq_len (derived). `step_time_s` is the file's value; its
  `step_time_source` is quoted. A >2% disagreement with GBS*seq/tokens_per_second would be flagged
  `step_time_inconsistent`.
* `sharding`: FULL_SHARD / FSDP2 / Megatron FSDP -> fsdp; SHARD_GRAD_OP -> zero2; DDP -> none; Megatron
  distributed optimizer or ZeRO stage 1 -> zero1; "no" without more detail -> empty (optimizer sharding not stated).
* `activation_checkpointing`: no/none -> none; selective (SAC) -> selective; full, "yes" (llm-foundry) and the
  Megatron 2021 recompute rows -> full (noted where the granularity was not stated).

## Caveats (from the shared README, in short)
* Units differ by source: total tokens/s (llm-foundry, llm.c), tokens/s per GPU (NeMo, Megatron-Bridge,
  AutoModel, torchtitan), TFLOP/s per GPU (Megatron-LM; tokens/s derived with Megatron's FLOPs-per-token
  formulas, 2021 table with recompute).
* MFU of FP8 rows from llm-foundry and one other source uses the FP8 peak (about half of a BF16-based MFU).
* Megatron-Bridge 25.09 rows have no precision column (FP8 inferred); Megatron-LM H100 rows state neither
  precision nor H100 variant (`precision_inferred`, `gpu_inferred`). `transcribed_from_image` rows were read from PNG
  tables.
* MoE throughput depends on forced-balanced routing; `params_b` is often the nominal size.
* torchtitan "TPS" is per GPU; the MXFP8 dense B200 table names no model and no unit (no tokens/s, no step time).
* Identical numbers repeated across releases were deduplicated by the curator (earliest commit kept); different
  numbers for the same configuration in different releases are separate rows (software-version variation).
* NeMo 24.07: earlier revisions of the same file differ by up to ~3%; only the final revision was transcribed.
* llm.c step times are approximate script comments (`approximate`); one is flagged `implausible_exceeds_peak`.

## Row counts in runs.csv
By precision:

{prec}

By GPU:

{gpu}

By model (empty = unmapped):

{model}
"""
    docs["vidur"] = """# Source: microsoft/vidur (`vidur`)

* **Repository:** microsoft/vidur, commit `7d47513363ec447a741ac5e47241580b47724fbf`, path `data/profiling/`.
* **License:** MIT.
* **Used:**
  * `shared/data/vidur_collectives_tidy.csv` ({ncoll_in} rows; derived by the curator from
    `data/profiling/network/<topology>/{{all_reduce,send_recv}}.csv`) -> `collectives.csv` ({ncoll} rows, source `vidur`).
    Each row cites the line of the verbatim network file (`shared/data/vidur/profiling/network/...`) that holds the
    same min/max/mean/median ({unmatched} rows could not be matched).
  * `shared/data/vidur/profiling/compute/{{a100,h100,a40}}/<hf-model>/mlp.csv` ({nfiles} files, {nlines} measurement
    rows) -> `ops/*.csv` ({nops} rows, source `vidur`): one row per (file line, operator).

## Collectives
* Times are milliseconds from vidur's CUDA timer: min/max/mean/median over a few active steps after warm-up, CUDA
  graphs disabled; `time_s` = median/1000. `size_bytes` is bytes (fp16 element count x 2). algbw = size/median
  and busbw = algbw*2(n-1)/n were added by the curator.
* Topologies and our GPU ids (node descriptions from vidur's `vidur/profiling/README.md`):
  `a100_dgx` -> a100-sxm4-80gb (DGX A100, 8x 80GB, NVSwitch, `nvlink3`); `h100_dgx` -> h100-sxm5-80gb (`nvlink4`);
  `a100_pairwise_nvlink` -> a100-pcie-80gb (Azure NC96ads_A100_v4, 4x A100 80GB, NVLink pairs; PCIe form factor
  inferred from the pairwise-bridge topology) with `nvlink3`; `h100_pairwise_nvlink` -> gpu empty (H100 variant
  not documented; pairwise bridges imply PCIe 80GB or NVL 94GB cards) with `nvlink4`; `a40_pairwise_nvlink` -> a40 (`nvlink-bridge`).
* `devices_per_node` < `num_workers` means several nodes (a100_dgx all_reduce 2x1, 4x2, 8x4, 16x8 and every
  send_recv with 1 device per node): `fabric_inter = unknown`. The 16-GPU A100 all_reduce reaches only ~17 GB/s
  busbw at 64 MiB, so that inter-node link is slow and undocumented.
* all_reduce is in-place (`torch.distributed.all_reduce(buffer)` in vidur's collectives_impl) -> `in_place = 1`.
* Sanity check at 64 MiB: A100 DGX 156/167/174 GB/s busbw on 2/4/8 GPUs; H100 DGX 274/317/365 GB/s.
* **Suspicious:** `h100_pairwise_nvlink/send_recv.csv` is byte-identical to `a100_pairwise_nvlink/send_recv.csv`
  in the source (probably a copied placeholder; rows kept and noted). The a40 pairwise send_recv with both GPUs in
  one node reaches only ~4 GB/s at 64 MiB, far below an NVLink bridge (noted).
* Exact duplicate rows in the tidy file: {coll_dups} dropped.

## MLP operator profiles (ops/*.csv)
* **FP16, forward only (inference)**, PyTorch/sarathi layers; `num_tokens` 1 to 4096 (Llama-3 files to 32768),
  tensor-parallel 1/2/4/8 (phi-2: 1). Each file repeats a few (num_tokens, tp) points twice; both rows are kept
  (different lines, slightly different times).
* Model dims (n_head, n_kv_head, n_embd, n_expanded_embd, vocab_size, use_gated_mlp) are columns of each mlp.csv;
  GEMM shapes follow vidur's `mlp_impl.py` (ColumnParallel QKV and up-proj, RowParallel out- and down-proj,
  divided by tp). Norm type (RMSNorm vs phi-2 LayerNorm) is not in the file and comes from the models' configs.
* `time_s` = median, `time_s_min`/`time_s_max` = min/max; mean and std stay in the source file. Repetition count
  not recorded.
* GPU ids: `a100` -> a100-sxm4-80gb and `h100` -> h100-sxm5-80gb (80GB per vidur's device config; form factor not
  stated: vidur uses the same compute data for DGX and Azure PCIe nodes), `a40` -> a40.
* **All `attention.csv` files are missing** from the snapshot (>= 4 MiB each), so no attention kernels.

## Row counts
collectives.csv by topology GPU id:

{coll_gpu}

ops.csv by GPU id:

{ops_gpu}
"""
    docs["nccl-tests"] = """# Source: published nccl-tests all_reduce sweeps (`nccl-tests`)

* **Shared file:** `shared/data/nccl_allreduce.csv` ({nin} measured lines) -> `collectives.csv` ({nout} rows, source
  `nccl-tests`): one row for out-of-place (`in_place=0`) and one for in-place (`in_place=1`) per measured line; the
  H200 rows have no in-place column (one row each).

| source (repo @ commit, path) | system | GPUs | our ids |
|---|---|---|---|
| `oracle-japan/ocitutorials` @40114268, `content/hpc/benchmark/run-nccltests-ubuntu/index.md` | OCI BM.GPU4.8 (A100-SXM4-40GB), 1 and 2 nodes, RoCE 16x100G | 8, 16 | a100-sxm4-40gb, nvlink3, roce-100x16 |
| `oracle-japan/ocitutorials` @08e1f17f, `content/hpc/benchmark/run-nccltests/index.md` | same shape, NGC TF 25.02 container | 8, 16 | same |
| `oracle-japan/ocitutorials` @876e820b, `content/hpc/benchmark/run-nccltests-h100/index.md` | 2x OCI BM.GPU.H100.8, RoCE 16x200G | 16 | h100-sxm5-80gb, nvlink4, roce-200x16 |
| `lessizzmore/create-a3mega-ztan-fork` @02dd8f45, `ztan-NCCL-test-result` | 2x 8x H100 (GCP A3 Mega, inferred from the repo name) | 16 | h100-sxm5-80gb, nvlink4, gcp-a3mega |
| `stas00/ml-engineering` @c53741b8, `network/benchmarks/results/all-reduce-8xH200.md` | 8x H200 NVSwitch, NCCL 2.27.7 | 8 | h200-sxm-141gb, nvlink4 |
| GitHub issue NVIDIA/nccl#1161 (description) | 2x H100 PCIe + NVLink bridge (user report) | 2 | h100-pcie-80gb, nvlink-bridge |

* **Licenses:** not checked by the curator. Oracle tutorials and the A3 Mega fork: unknown; ml-engineering:
  believed CC BY-SA; the issue text: GitHub terms. Only numbers were copied.
* `time_s` = published time (us) / 1e6. busbw/algbw were checked against 2(n-1)/n for every row by the curator
  (0 mismatches).

## Caveats
* The H200 sweep is a **torch.distributed benchmark, not nccl-tests**; its dtype is not stated (`dtype` empty) and
  its time was derived by the curator as size/algbw. The source says NVLS is used at >= 2 MiB (`algorithm=nvls`
  on those rows).
* The A3 Mega system type is inferred from the repository name; the inter-node fabric is unverified.
* The NCCL issue rows are a user report; only the rows visible in the stored excerpt were transcribed.
* Small sizes report algbw 0.00 (rounded in the source); times are still valid.
* Useful reference statements (not rows): 8x H100 NVLS all_reduce peaks at ~480 GB/s busbw (nccl-tests#212);
  ~200-210 GB/s busbw on 8x A100-80GB (nccl-tests#149, #178).

## Row counts
{gpu}
"""
    docs["neusight"] = """# Source: sitar-lab/NeuSight (`neusight`)

* **Repository:** sitar-lab/NeuSight (ASPLOS'25 artifact), commit `6945927d9afcca2b9daf021f8395e53edc5b4eef`.
* **License:** MIT.
* **Used:** `data/dataset/test/{{bmm,linear,elem,ln,softmax}}.csv` (verbatim in
  `shared/data/neusight/data/dataset/test/`, {nin} rows) -> `ops/*.csv` ({nout} rows, source `neusight`), one row per
  measurement, `source_ref` = file and line.
* Not used: `data/micro/*.csv` (per-device roofline fit parameters) and `data/device_configs/*.json` (device specs)
  - they are fits/specs, not measurements.

## Content
* Per-kernel **FP32** latency in ms (sgemm/FFMA kernels, no TF32), PyTorch 2.1.0, CUDA 12.1, with the launched kernel
  name, grid/block dimensions and achieved warps/blocks per SM (kept in the source file).
* Devices: Tesla P4, P100-PCIE-16GB, T4, V100-PCIE-32GB, A100-PCIE-40GB, A100 80GB PCIe, H100 80GB HBM3, L4 (the
  test split only; elem/ln/softmax have no H100 rows).
* `time_s` = Latency/1000; repetitions and spread are not recorded.
* GPU ids: A100 80GB PCIe -> a100-pcie-80gb, A100-PCIE-40GB -> a100-pcie-40gb, V100-PCIE-32GB -> v100-pcie-32gb,
  H100 80GB HBM3 -> h100-sxm5-80gb (the 80GB HBM3 part is the SXM5 board), L4 -> l4, T4 -> t4, P4 -> p4,
  P100-PCIE-16GB -> p100-pcie-16gb (all ids of `configs/gpus/`, whose aliases list these device strings).
* Shapes: bmm B x (M x K) @ (K x N); linear (B*M x K) with weight (N x K), B = 1; elementwise/ln/softmax B x H.
  FLOP/byte formulas in `datasets/README.md`.
* A few bmm launches use split-K (2-3 kernels); the kernel list is in notes.

## Row counts
By GPU id:

{gpu}

By op:

{ops}
"""
    prec = lambda s: cnt(runs, s, "precision")
    gpu = lambda s: cnt(runs, s, "gpu")
    model = lambda s: cnt(runs, s, "model")
    files = {
        "dle.md": docs["dle"].format(nin=stats["dle_in"], nout=rc["dle"], prec=prec("dle"), gpu=gpu("dle"), model=model("dle")),
        "lambda.md": docs["lambda"].format(nin=stats["lambda_in"], nout=rc["lambda"], prec=prec("lambda"), gpu=gpu("lambda"), model=model("lambda")),
        "llm.md": docs["llm"].format(nin=stats["llm_in"], nout=rc["llm"], prec=prec("llm"), gpu=gpu("llm"), model=model("llm")),
        "vidur.md": docs["vidur"].format(
            ncoll_in=stats["vidur_coll_in"], ncoll=sum(1 for r in colls if r["source"] == "vidur"),
            unmatched=stats["vidur_unmatched"], nfiles=stats["vidur_files"], nlines=stats["vidur_lines"],
            nops=sum(1 for r in ops if r["source"] == "vidur"), coll_dups=stats["coll_dups"],
            coll_gpu=cnt(colls, "vidur", "gpu"), ops_gpu=cnt(ops, "vidur", "gpu")),
        "nccl-tests.md": docs["nccl-tests"].format(
            nin=stats["nccl_in"], nout=sum(1 for r in colls if r["source"] == "nccl-tests"),
            gpu=cnt(colls, "nccl-tests", "gpu")),
        "neusight.md": docs["neusight"].format(
            nin=stats["neusight_in"], nout=sum(1 for r in ops if r["source"] == "neusight"),
            gpu=cnt(ops, "neusight", "gpu"), ops=cnt(ops, "neusight", "op_name")),
    }
    for name, text in files.items():
        with open(os.path.join(d, name), "w", encoding="utf-8") as f:
            f.write(text)


# ---------------------------------------------------------------------------
# checks
# ---------------------------------------------------------------------------
def check_outputs(runs, colls, ops):
    problems = []
    for r in runs:
        for c in ("samples_per_second", "tokens_per_second", "step_time_s"):
            v = r[c]
            if v != "":
                f = float(v)
                if not (f > 0) or f != f:
                    problems.append("runs %s: %s=%s" % (r["run_id"], c, v))
        if r["step_time_s"]:
            st = float(r["step_time_s"])
            gbs = r["global_batch_size"]
            if r["samples_per_second"] and gbs != "":
                ratio = st * float(r["samples_per_second"]) / float(gbs)
                if abs(ratio - 1) > 0.02 and "step_time_inconsistent" not in r["quality_flag"] \
                        and "batch_inconsistent" not in r["quality_flag"]:
                    problems.append("runs %s: step*sps/gbs=%.4f" % (r["run_id"], ratio))
            elif not r["samples_per_second"]:
                problems.append("runs %s: step time without samples_per_second" % r["run_id"])
        if r["precision"] not in ("fp32", "tf32", "fp16", "bf16", "amp_fp16", "amp_bf16", "fp8", "fp4"):
            problems.append("runs %s: precision %s" % (r["run_id"], r["precision"]))
        if r["model"] and r["model"] not in ZOO_IDS and r["model"] not in LLM_EXTRA_IDS \
                and not MEGATRON_FAMILY_RE.match(r["model"]):
            problems.append("runs %s: model id %s" % (r["run_id"], r["model"]))
        if r["measurement"] not in ("epoch_average", "steady_state", "synthetic", "unknown"):
            problems.append("runs %s: measurement" % r["run_id"])
    for rows, name in ((colls, "collectives"), (ops, "ops")):
        for r in rows:
            for c in ("time_s", "time_s_min", "time_s_max"):
                v = r.get(c, "")
                if v != "":
                    f = float(v)
                    if not (f > 0):
                        problems.append("%s %s: %s=%s" % (name, r["point_id"], c, v))
            if r.get("time_s_min") and r.get("time_s_max"):
                if not float(r["time_s_min"]) <= float(r["time_s"]) <= float(r["time_s_max"]):
                    problems.append("%s %s: median outside [min,max]" % (name, r["point_id"]))
    for rows, col in ((runs, "run_id"), (colls, "point_id"), (ops, "point_id")):
        ids = [r[col] for r in rows]
        if len(ids) != len(set(ids)):
            problems.append("duplicate ids in %s" % col)
    return problems


def check_catalog(runs, colls, ops):
    """When run inside the ptp repository, every emitted GPU / fabric id must exist in configs/."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    gdir = os.path.join(root, "configs", "gpus")
    fdir = os.path.join(root, "configs", "fabrics")
    problems = []
    if os.path.isdir(gdir):
        known = set(f[:-5] for f in os.listdir(gdir) if f.endswith(".yaml"))
        used = set(r["gpu"] for rows in (runs, colls, ops) for r in rows if r["gpu"])
        for g in sorted(used - known):
            problems.append("gpu id %s not in configs/gpus" % g)
    if os.path.isdir(fdir):
        known = set(f[:-5] for f in os.listdir(fdir) if f.endswith(".yaml"))
        used = set(r["fabric_inter"] for r in colls if r["fabric_inter"] not in ("", "unknown"))
        for fab in sorted(used - known):
            problems.append("fabric id %s not in configs/fabrics" % fab)
    return problems


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", required=True, help="path to shared/data")
    ap.add_argument("--out", required=True, help="output directory (datasets/)")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    shared = os.path.normpath(args.shared)
    out = os.path.normpath(args.out)
    os.makedirs(out, exist_ok=True)

    stats = {}
    # runs
    dle, stats["dle_in"] = build_dle(os.path.join(shared, "dle_throughput.csv"))
    lam, stats["lambda_in"] = build_lambda(os.path.join(shared, "lambda_throughput.csv"))
    llm, stats["llm_in"] = build_llm(os.path.join(shared, "llm_bf16_fp8_throughput.csv"))
    runs = dle + lam + llm
    runs, run_dups = dedupe(runs, RUNS_COLUMNS, "run_id")
    assign_run_ids(runs)
    runs.sort(key=lambda r: (r["source"], r["run_id"]))
    stats["runs_by_source"] = Counter(r["source"] for r in runs)

    # collectives
    vcol, stats["vidur_coll_in"], stats["vidur_unmatched"], tidy_dups = build_vidur_collectives(shared)
    ncol, stats["nccl_in"] = build_nccl(shared)
    colls = vcol + ncol
    pre = {"vidur": "vidur", "nccl-tests": "nccl"}
    for r in colls:
        r["point_id"] = ""
    colls, coll_dups = dedupe(colls, [c for c in COLL_COLUMNS], "point_id")
    assign_point_ids(colls, lambda r: "|".join([r["source_ref"], r["collective"], str(r["size_bytes"]),
                                                str(r["ranks"]), str(r["nodes"]), str(r["ranks_per_node"]),
                                                str(r["in_place"])]), "")
    for r in colls:
        r["point_id"] = pre[r["source"]] + r["point_id"]
        r.pop("_line", None)
    colls.sort(key=lambda r: (r["source"], r["point_id"]))
    coll_dups += tidy_dups
    stats["coll_dups"] = coll_dups

    # ops
    nops, stats["neusight_in"] = build_neusight(shared)
    vops, stats["vidur_files"], stats["vidur_lines"] = build_vidur_ops(shared)
    ops = nops + vops
    for r in ops:
        r["point_id"] = ""
    ops, op_dups = dedupe(ops, OPS_COLUMNS, "point_id")
    prefix = {"neusight": "neusight", "vidur": "vidur"}
    assign_point_ids(ops, lambda r: r["_key"], "")
    for r in ops:
        r["point_id"] = prefix[r["source"]] + r["point_id"]
        r.pop("_key", None)
    ops.sort(key=lambda r: (r["source"], r["point_id"]))

    dup_parts = []
    for name, n in (("runs", run_dups), ("collectives", coll_dups), ("ops", op_dups)):
        dup_parts.append("%s: %d" % (name, n))
    stats["dedup_text"] = "dropped: " + ", ".join(dup_parts)

    problems = check_outputs(runs, colls, ops)
    problems += check_catalog(runs, colls, ops)
    if problems:
        for p in problems[:50]:
            print("CHECK FAILED:", p, file=sys.stderr)
        raise SystemExit("%d check failures" % len(problems))

    write_csv(os.path.join(out, "runs.csv"), RUNS_COLUMNS, runs)
    write_csv(os.path.join(out, "collectives.csv"), COLL_COLUMNS, colls)
    # One file per source under ops/ keeps each file small; ptp-train reads every CSV in the folder
    # (ptp-profile writes its own files there too). source_ref there is relative to the source's
    # repository@commit recorded in sources/<source>.md and MANIFEST.json.
    old = os.path.join(out, "ops.csv")
    if os.path.exists(old):
        os.remove(old)
    import shutil
    shutil.rmtree(os.path.join(out, "ops"), ignore_errors=True)
    for src, cls in sorted(set((r["source"], r["op_class"]) for r in ops)):
        rows = [dict(r, shape="" if r.get("m") not in ("", None) and src == "neusight" else r.get("shape", ""))
                for r in ops if r["source"] == src and r["op_class"] == cls]
        write_csv(os.path.join(out, "ops", "%s-%s.csv" % (src, cls)), OPS_COLUMNS, rows)
    stats["raw_copied"], stats["raw_total"] = copy_raw(shared, out)
    write_readme(out, runs, colls, ops, stats)
    write_source_docs(out, stats, runs, colls, ops)

    # manifest (inputs and outputs, sorted; excludes itself)
    inputs = []
    for root, _, fnames in os.walk(shared):
        for fn in fnames:
            p = os.path.join(root, fn)
            rel = os.path.relpath(p, shared).replace(os.sep, "/")
            inputs.append({"path": rel, "bytes": os.path.getsize(p), "sha256": sha256_file(p)})
    inputs.sort(key=lambda d: d["path"])
    outputs = []
    for root, _, fnames in os.walk(out):
        for fn in fnames:
            p = os.path.join(root, fn)
            rel = os.path.relpath(p, out).replace(os.sep, "/")
            if rel == "MANIFEST.json":
                continue
            outputs.append({"path": rel, "bytes": os.path.getsize(p), "sha256": sha256_file(p)})
    outputs.sort(key=lambda d: d["path"])
    manifest = OrderedDict([
        ("schema_version", SCHEMA_VERSION),
        ("generator", "scripts/build_datasets.py"),
        ("command", REGEN_CMD),
        ("rows", OrderedDict([("runs.csv", len(runs)), ("collectives.csv", len(colls)), ("ops.csv", len(ops))])),
        ("exact_duplicates_dropped", OrderedDict([("runs", run_dups), ("collectives", coll_dups), ("ops", op_dups)])),
        ("inputs", inputs),
        ("outputs", outputs),
    ])
    with open(os.path.join(out, "MANIFEST.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")

    if not args.quiet:
        print("runs.csv        %6d rows  %s" % (len(runs), dict(sorted(stats["runs_by_source"].items()))))
        print("collectives.csv %6d rows  %s" % (len(colls), dict(sorted(Counter(r["source"] for r in colls).items()))))
        print("ops.csv         %6d rows  %s" % (len(ops), dict(sorted(Counter(r["source"] for r in ops).items()))))
        print("exact duplicates dropped: runs %d, collectives %d, ops %d" % (run_dups, coll_dups, op_dups))
        print("runs by precision:", dict(sorted(Counter(r["precision"] for r in runs).items())))
        print("runs by gpu:", dict(sorted(Counter(r["gpu"] or "(unmapped)" for r in runs).items())))
        print("runs by model:", dict(sorted(Counter(r["model"] or "(unmapped)" for r in runs).items())))
        print("runs with step_time_s:", sum(1 for r in runs if r["step_time_s"]), "of", len(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
