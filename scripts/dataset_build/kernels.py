"""Per-shape GEMM kernel timings by precision (shared/data/kernels/, see its README.md) -> ops rows.

Sources (row `source`): `xla` (XLA's measured matmul table, H100 sm_90 + B200; TF32, BF16, FP8),
`deepgemm` (DeepGEMM README, H800 SXM5, block-scaled FP8; latest table only) and `tilelang`
(tilelang benchmark READMEs, H800 SXM, FP8 and FP16; latest table only). ml-engineering's MAMF table
(`mamf_ml_engineering.csv`) is best-of-shape-search maxima, not per-shape timings: it is counted for
the docs but not written. Rows the kernels README says not to fit on are written with status
`skipped` and the reason (the C++ trainer reads only status `ok`).
"""

import os
from collections import OrderedDict

from .common import fmt, join_notes, ms_to_s, read_csv_with_lines

KERNEL_DIR = "kernels"
XLA_FILE = "xla_matmul_perf_table.csv"
DEEPGEMM_FILE = "deepgemm_fp8.csv"
TILELANG_FILE = "tilelang_h800.csv"
MAMF_FILE = "mamf_ml_engineering.csv"

H100_SKU_NOTE = ("gpu id choice: XLA key sm_90 names no SKU (the commit that refreshed the table says H100); "
                 "read as h100-sxm5-80gb because the table's own maxima (BF16 805, TF32 403 TFLOPS) exceed the "
                 "H100 PCIe dense peaks (756.5 / 378), so it is not the PCIe card; memory size (80/96 GB) and an "
                 "H100 NVL are not excluded, GEMMs <= 4096 do not depend on memory size")
H800_NOTE = ("H800 SXM5: H100 SXM5 compute die with NVLink cut to 400 GB/s (kernels/README.md); "
             "single-GPU GEMM, NVLink irrelevant")
XLA_GPU = {
    "sm_90": ("h100-sxm5-80gb", H100_SKU_NOTE),
    "sm_100_B200": ("b200-sxm-180gb", ""),
}
H800_GPU = {"H800": "h800-sxm5-80gb", "H800 SXM5": "h800-sxm5-80gb", "NVIDIA H800 SXM": "h800-sxm5-80gb"}

DTYPE_BYTES = {"fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8_e4m3": 1, "fp8_e5m2": 1}
# kernels README math -> ops dtype_compute (the math mode)
MATH_MODE = {"fp32": "fp32", "tf32": "tf32", "bf16": "bf16", "fp16": "fp16",
             "fp8_e4m3": "fp8", "fp8_e4m3xe5m2": "fp8", "fp8_e5m2xe4m3": "fp8"}
# quality flags of xla_matmul_perf_table.csv that keep a row out of training (kernels/README.md, FP8 caution)
XLA_EXCLUDED_FLAGS = ("sm90_fp8_suspect_see_readme", "fp8_faster_than_2x_bf16")


def gemm_fields(x):
    """(op_class, m, n, k, batch, dtype_in, dtype_compute, dtype_out, flops, bytes) of one kernels row.

    bytes = batch*((m*k + k*n)*in_bytes + m*n*out_bytes): operands read once, output written once
    (block-scale factors, split-K workspaces and converts are not counted)."""
    m, n, k, batch = (int(x[c]) for c in ("m", "n", "k", "batch"))
    a, b, out = x["dtype_a"], x["dtype_b"], x["dtype_out"]
    dtype_in = a if a == b else "fp8"
    nbytes = batch * (m * k * DTYPE_BYTES[a] + k * n * DTYPE_BYTES[b] + m * n * DTYPE_BYTES[out])
    op_class = "batched_gemm" if batch > 1 else "gemm"
    return op_class, m, n, k, batch, dtype_in, MATH_MODE[x["math"]], out, 2 * m * n * k * batch, nbytes


def base_row(source, ref, x, op_name, gpu, time_s, status, reason, notes, key):
    op_class, m, n, k, batch, d_in, d_comp, d_out, flops, nbytes = gemm_fields(x)
    r = OrderedDict()
    r["source"] = source
    r["source_ref"] = ref
    r["op_class"] = op_class
    r["op_name"] = op_name
    r["m"], r["n"], r["k"], r["batch"] = m, n, k, batch
    r["shape"] = "M=%d;N=%d;K=%d;batch=%d" % (m, n, k, batch)
    r["dtype_in"], r["dtype_compute"], r["dtype_out"] = d_in, d_comp, d_out
    r["flops"] = flops
    r["bytes"] = nbytes
    r["gpu"] = gpu
    r["time_s"] = time_s
    r["time_s_min"] = r["time_s_max"] = r["reps"] = ""
    r["status"] = status
    r["reason"] = reason
    r["kernel_name"] = ""
    r["notes"] = notes
    r["_key"] = key
    return r


def upstream_ref(x):
    return "%s@%s:%s" % (x["source_repo"], x["source_commit"], x["source_path"])


def operand_note(x):
    if x["dtype_a"] != x["dtype_b"]:
        return "operands A %s, B %s" % (x["dtype_a"], x["dtype_b"])
    return ""


def xla_rows(shared, stats):
    rows = read_csv_with_lines(os.path.join(shared, KERNEL_DIR, XLA_FILE))
    out = []
    for x, line in rows:
        gpu, gnote = XLA_GPU[x["xla_device_key"]]
        bad = [f for f in XLA_EXCLUDED_FLAGS if f in x["quality_flag"].split(";")]
        status, reason = ("skipped", ";".join(bad)) if bad else ("ok", "")
        notes = [
            "kernels/%s:%d" % (XLA_FILE, line),
            "XLA dtype %s, math %s, accumulate %s" % (x["xla_dtype_key"], x["math"], x["accumulate"]),
            operand_note(x),
            "time_s = time_ns (median CUPTI kernel duration) recovered from the published FLOP/s "
            "(2*b*m*n*k/flops_per_s, exact integer ns; derived)",
            "median over all kernels XLA launched for the dot (cuBLAS/cuBLASLt or Triton, autotuned); no L2 flush",
            gnote,
        ]
        if x["math"] == "tf32":
            notes.append("tf32 inferred from XLA's default f32 dot precision on CUDA (kernels/README.md)")
        if x["quality_flag"]:
            notes.append("source quality_flag: %s (kernels/README.md: do not fit on sm_90 FP8; B200 FP8 "
                         "faster than 2x BF16 is not physical)" % x["quality_flag"])
        out.append(base_row("xla", upstream_ref(x), x, "xla_dot", gpu,
                            fmt(int(x["time_ns"]) / 1e9, 10), status, reason, join_notes(notes),
                            "%s|%d" % (XLA_FILE, line)))
    stats["kernels_xla_in"] = len(rows)
    return out


def deepgemm_rows(shared, stats):
    rows = read_csv_with_lines(os.path.join(shared, KERNEL_DIR, DEEPGEMM_FILE))
    out = []
    for x, line in rows:
        if x["is_latest_table"] != "1":
            continue  # earlier README tables repeat the same shapes (kernels/README.md)
        layout = x["notes"].split(";")[0].replace("layout=", "")
        m, n, k, batch = (int(x[c]) for c in ("m", "n", "k", "batch"))
        time_s = fmt(2.0 * batch * m * n * k / (float(x["tflops"]) * 1e12), 7)
        notes = [
            "kernels/%s:%d" % (DEEPGEMM_FILE, line),
            "time_s derived = 2*groups*m*n*k/(published integer TFLOPS) (~0.5 TFLOPS rounding)",
            "block-scaled FP8 (DeepSeek-style): A e4m3 with per-1x128 scales, B e4m3 with 128x128 block scales, "
            "FP32 promotion on CUDA cores; bf16 out; scale-factor bytes not in `bytes`",
            "layout %s%s" % (layout, "; batch = groups, m = M per group" if x["op"] == "grouped_gemm" else ""),
            "library deepgemm (JIT-tuned per shape); kernel time via torch profiler, avg of 30 calls, L2 flushed",
            "README table of %s (is_latest_table=1)" % x["readme_date"],
            H800_NOTE,
        ]
        op_name = "deepgemm_" + ("gemm" if x["op"] == "gemm" else "grouped_gemm_" + layout)
        out.append(base_row("deepgemm", upstream_ref(x), x, op_name, H800_GPU[x["gpu"]], time_s,
                            "ok", "", join_notes(notes), "%s|%d" % (DEEPGEMM_FILE, line)))
    stats["kernels_deepgemm_in"] = len(rows)
    stats["kernels_deepgemm_latest"] = len(out)
    return out


def tilelang_rows(shared, stats):
    rows = read_csv_with_lines(os.path.join(shared, KERNEL_DIR, TILELANG_FILE))
    out = []
    for x, line in rows:
        if x["is_latest_table"] != "1":
            continue  # the FP8 table was re-measured the same day; the older one is history
        notes = [
            "kernels/%s:%d" % (TILELANG_FILE, line),
            "time_s = published latency (labelled seconds, values in ms) / 1000",
            "best latency over tilelang's autotuning search (warmup 3, rep 20); NT layout; output in the input "
            "dtype, fp32 accumulate, no scaling factors",
            H800_NOTE,
        ]
        out.append(base_row("tilelang", upstream_ref(x), x, "tilelang_matmul", H800_GPU[x["gpu"]],
                            ms_to_s(x["published_latency_ms"]), "ok", "", join_notes(notes),
                            "%s|%d" % (TILELANG_FILE, line)))
    stats["kernels_tilelang_in"] = len(rows)
    stats["kernels_tilelang_latest"] = len(out)
    return out


def build(shared, stats=None):
    """ops rows from shared/data/kernels/*.csv; stats: input and kept counts per file (for the docs)."""
    st = {}
    out = xla_rows(shared, st) + deepgemm_rows(shared, st) + tilelang_rows(shared, st)
    st["kernels_mamf_in"] = len(read_csv_with_lines(os.path.join(shared, KERNEL_DIR, MAMF_FILE)))
    if stats is not None:
        stats.update(st)
    return out
