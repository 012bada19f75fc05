"""Published GPU / node power of training runs (`power/measured_power.csv`) -> datasets/power.csv.

One output row per shared row, in the shared file's order. Every published column is kept; where this
module writes a mapped value under the plain name, the published text moves to `*_as_published`:
`gpu` is a catalog id (empty when the part is not in configs/gpus/ or its variant matters for power and
is not stated), `precision` the job-spec vocabulary (empty where the source does not say), `model` a zoo
id (empty when the architecture is not in configs/models/). Nothing measured is changed; the curator's
scope (board / system per accelerator / node) and quality flags travel with each row, so a fit can
keep board-level, measured rows only. What the mapping assumed is written to `mapping_notes`.
"""

import os

from .common import read_csv_with_lines
from .schema import PRECISIONS

SHARED_FILE = os.path.join("power", "measured_power.csv")

PUBLISHED = [
    "source", "source_ref", "what", "model", "dataset_or_task", "gpu", "num_gpus", "parallelism",
    "precision", "precision_ptp", "precision_note", "batch_size", "batch_note", "seq_len", "power_limit_w",
    "sm_clock_mhz", "avg_power_w_per_gpu", "power_derived", "node_power_w", "node_power_stat", "energy_j",
    "energy_over", "duration_s", "duration_over", "step_time_s", "throughput", "throughput_unit",
    "achieved_tflops_per_gpu", "utilization", "utilization_kind", "measured_how", "scope", "tdp_w",
    "tdp_source", "power_frac_tdp", "quality_flag", "notes",
]
# Mapped columns first, then every published column (renamed where a mapped one takes its name).
POWER_COLUMNS = (["row_id", "origin", "shared_ref", "gpu", "gpu_as_published", "precision",
                  "precision_as_published", "model", "model_as_published", "scope_kind", "mapping_notes"]
                 + [c for c in PUBLISHED if c not in ("gpu", "precision", "model")])

# source prefix -> short origin id (one per publishing project / paper)
ORIGIN = (
    ("Zeus NSDI'23", "zeus"),
    ("Perseus SOSP'24 artifact: Zeus global", "perseus_global"),
    ("Perseus SOSP'24 artifact: all-max", "perseus_rank"),
    ("Perseus SOSP'24 artifact: emulation", "perseus_stage"),
    ("Perseus SOSP'24 artifact: blocking", "perseus_blocking"),
    ("flopmetrics", "flopmetrics"),
    ("training_profile", "wilkins"),
    ("Patterson", "patterson"),
    ("Dodge", "dodge"),
    ("Latif", "latif"),
    ("Newkirk", "newkirk"),
    ("Llama", "llama_card"),
)

# published GPU text -> (catalog id, how). Power depends on the form factor (PCIe vs SXM TDP), not on
# the memory size, so a stated form factor with an unstated memory size maps to the catalog's part of
# that form factor; an unstated form factor maps only where the curator inferred it from the power.
GPU_MAP = {
    "NVIDIA V100 (max power limit 250 W in trace, i.e. PCIe variant)": ("v100-pcie-16gb", "memory_assumed"),
    "NVIDIA P100 (max power limit 250 W in trace, i.e. PCIe variant)": ("p100-pcie-16gb", "memory_assumed"),
    "NVIDIA A40": ("a40", "exact"),
    "NVIDIA A40-48G": ("a40", "exact"),
    "NVIDIA Quadro RTX 6000": ("quadro-rtx-6000", "exact"),
    "NVIDIA A100-80G PCIe": ("a100-pcie-80gb", "exact"),
    "NVIDIA A100 (PCIe in experiments; also used for SXM emulation)": ("a100-pcie-80gb", "exact"),
    "NVIDIA A100-80G SXM (500 W configuration inferred)": ("a100-sxm4-80gb", "tdp_differs"),
    "NVIDIA A100 (variant not stated; SXM inferred)": ("a100-sxm4-80gb", "curator_inferred"),
    "NVIDIA H100 (variant not stated; SXM inferred)": ("h100-sxm5-80gb", "curator_inferred"),
    "NVIDIA V100 (variant not stated; SXM2 inferred)": ("v100-sxm2-16gb", "curator_inferred"),
    "NVIDIA L40S": ("l40s", "exact"),
    "NVIDIA H100 80GB (Azure VM; SXM per ND H100 v5)": ("h100-sxm5-80gb", "exact"),
    "NVIDIA H100 SXM (8-GPU HGX node)": ("h100-sxm5-80gb", "memory_assumed"),
    "NVIDIA H100 SXM (8-GPU node)": ("h100-sxm5-80gb", "memory_assumed"),
    "NVIDIA A100-80GB": ("a100-sxm4-80gb", "variant_assumed"),
    "NVIDIA H100-80GB": ("h100-sxm5-80gb", "variant_assumed"),
}
GPU_NOTES = {
    "memory_assumed": "gpu: memory size not stated; the catalog part of the stated form factor (same TDP)",
    "tdp_differs": "gpu: the source's 500 W A100 SXM configuration; the catalog part's TDP is 400 W",
    "curator_inferred": "gpu: SXM inferred by the data's curator from power above the PCIe TDP",
    "variant_assumed": "gpu: form factor not stated, SXM assumed (the model cards' 400 / 700 W are SXM TDPs)",
}
# Unmapped on purpose: "NVIDIA V100", "NVIDIA A100", "NVIDIA P100" (Dodge, Patterson: form factor and
# so TDP not stated), P40, TITAN X (not in the catalog), TPUs.

MODEL_MAP = {
    "resnet50": "resnet50",
    "ncf": "ncf",
    "bert_base_uncased": "bert-base",
    "gpt3-175b": "gpt3-175b",
    "gpt3-xl": "gpt3-xl",
    "gpt3-2.7b": "gpt3-2.7b",
    "Llama-3.2-1B": "llama3.2-1b",
}



def origin_of(source):
    for prefix, origin in ORIGIN:
        if source.startswith(prefix):
            return origin
    raise ValueError("unknown power source %r" % source)


def scope_kind(scope):
    """board | system_per_accelerator | node | tdp: the curator's scope text in one word."""
    s = scope.lower()
    if "tdp" in s:
        return "tdp"
    if s.startswith("gpu board"):
        return "board"
    if s.startswith("system per accelerator"):
        return "system_per_accelerator"
    if s.startswith("node"):
        return "node"
    raise ValueError("unknown power scope %r" % scope)


def build(shared, stats=None):
    path = os.path.join(shared, SHARED_FILE)
    rows = []
    for i, (rec, line) in enumerate(read_csv_with_lines(path), start=1):
        notes = []
        gpu, how = GPU_MAP.get(rec["gpu"], ("", ""))
        if how in GPU_NOTES:
            notes.append(GPU_NOTES[how])
        prec = rec["precision_ptp"]
        if prec and prec not in PRECISIONS:
            raise ValueError("%s:%d: precision_ptp %r" % (path, line, prec))
        row = {
            "row_id": "power%04d" % i,
            "origin": origin_of(rec["source"]),
            "shared_ref": "power/measured_power.csv:%d" % line,
            "gpu": gpu,
            "gpu_as_published": rec["gpu"],
            "precision": prec,
            "precision_as_published": rec["precision"],
            "model": MODEL_MAP.get(rec["model"], ""),
            "model_as_published": rec["model"],
            "scope_kind": scope_kind(rec["scope"]),
            "mapping_notes": "; ".join(notes),
        }
        for c in PUBLISHED:
            if c not in ("gpu", "precision", "model"):
                row[c] = rec[c]
        rows.append(row)
    if stats is not None:
        stats["power_in"] = len(rows)
    return rows


def check(rows, root):
    """Problems: catalog ids not in configs/gpus, zoo ids not in configs/models, bad numbers."""
    problems = []
    for d, col in ((os.path.join(root, "configs", "gpus"), "gpu"), (os.path.join(root, "configs", "models"), "model")):
        if os.path.isdir(d):
            known = set(f[:-5] for f in os.listdir(d) if f.endswith(".yaml"))
            for v in sorted(set(r[col] for r in rows if r[col]) - known):
                problems.append("power: %s id %s not in %s" % (col, v, os.path.relpath(d, root)))
    for r in rows:
        for col in ("avg_power_w_per_gpu", "power_limit_w", "energy_j", "tdp_w"):
            if r[col]:
                try:
                    ok = float(r[col]) > 0
                except ValueError:
                    ok = False
                if not ok:
                    problems.append("power %s: %s %r" % (r["row_id"], col, r[col]))
    return problems
