"""Writing the outputs: the CSV tables (ops/ split per source and op class), verbatim raw/ copies of the
small source files, and MANIFEST.json (sha256 of every input and output)."""

import json
import os
import shutil
from collections import OrderedDict

from .common import sha256_file, write_csv
from .schema import COLL_COLUMNS, GENERATOR, OPS_COLUMNS, REGEN_CMD, RUNS_COLUMNS, SCHEMA_VERSION

RAW_FILES = [
    ("dle", "dle_throughput.csv"),
    ("lambda", "lambda_throughput.csv"),
    ("llm", "llm_bf16_fp8_throughput.csv"),
    ("nccl-tests", "nccl_allreduce.csv"),
    ("shared", "README.md"),  # the curator's provenance notes for all of the above
    # per-shape GEMM timings used for ops/ (mamf_ml_engineering.csv is not used, only cited)
    ("shared", "kernels/README.md"),
    ("shared", "kernels/xla_matmul_perf_table.csv"),
    ("shared", "kernels/deepgemm_fp8.csv"),
    ("shared", "kernels/tilelang_h800.csv"),
    # published peak memory -> memory.csv (with its curator's README: memory kinds, units, caveats)
    ("shared", "memory/README.md"),
    ("shared", "memory/measured_memory.csv"),
    # published training power -> power.csv (which keeps every published column); the curator's README
    # says which rows are board, system or node power and which are upper bounds
    ("shared", "power/README.md"),
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


def write_tables(out, runs, colls, ops):
    write_csv(os.path.join(out, "runs.csv"), RUNS_COLUMNS, runs)
    write_csv(os.path.join(out, "collectives.csv"), COLL_COLUMNS, colls)
    # One file per source under ops/ keeps each file small; ptp-train reads every CSV in the folder
    # (ptp-profile writes its own files there too). source_ref there is relative to the source's
    # repository@commit recorded in sources/<source>.md and MANIFEST.json.
    old = os.path.join(out, "ops.csv")
    if os.path.exists(old):
        os.remove(old)
    shutil.rmtree(os.path.join(out, "ops"), ignore_errors=True)
    for src, cls in sorted(set((r["source"], r["op_class"]) for r in ops)):
        rows = [dict(r, shape="" if r.get("m") not in ("", None) and src == "neusight" else r.get("shape", ""))
                for r in ops if r["source"] == src and r["op_class"] == cls]
        write_csv(os.path.join(out, "ops", "%s-%s.csv" % (src, cls)), OPS_COLUMNS, rows)


def write_memory_table(out, rows):
    """memory.csv: one row per published peak-memory measurement (memory.MEMORY_COLUMNS)."""
    from .memory import MEMORY_COLUMNS
    write_csv(os.path.join(out, "memory.csv"), MEMORY_COLUMNS, rows)


def write_power_table(out, rows):
    """power.csv: one row per published power measurement (power.POWER_COLUMNS)."""
    from .power import POWER_COLUMNS
    write_csv(os.path.join(out, "power.csv"), POWER_COLUMNS, rows)


def _file_entries(base, skip=()):
    entries = []
    for root, _, fnames in os.walk(base):
        for fn in fnames:
            p = os.path.join(root, fn)
            rel = os.path.relpath(p, base).replace(os.sep, "/")
            if rel in skip:
                continue
            entries.append({"path": rel, "bytes": os.path.getsize(p), "sha256": sha256_file(p)})
    entries.sort(key=lambda d: d["path"])
    return entries


def write_manifest(shared, out, n_rows, dups, memory_rows=None, power_rows=None):
    """MANIFEST.json: inputs and outputs sorted by path (excluding itself).

    n_rows: (runs, collectives, ops) row counts; dups: (runs, collectives, ops) exact duplicates dropped;
    memory_rows, power_rows: rows of memory.csv and power.csv (listed after the training tables when given).
    """
    rows = OrderedDict(zip(("runs.csv", "collectives.csv", "ops.csv"), n_rows))
    if memory_rows is not None:
        rows["memory.csv"] = memory_rows
    if power_rows is not None:
        rows["power.csv"] = power_rows
    manifest = OrderedDict([
        ("schema_version", SCHEMA_VERSION),
        ("generator", GENERATOR),
        ("command", REGEN_CMD),
        ("rows", rows),
        ("exact_duplicates_dropped", OrderedDict(zip(("runs", "collectives", "ops"), dups))),
        ("inputs", _file_entries(shared)),
        ("outputs", _file_entries(out, skip=("MANIFEST.json",))),
    ])
    with open(os.path.join(out, "MANIFEST.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
