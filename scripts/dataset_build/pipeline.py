"""The build pipeline behind scripts/build_datasets.py: sources -> ids -> checks -> files.

Every source module has `build(shared, stats=None) -> rows` (rows are dicts keyed by the table's
columns, plus `_`-prefixed helper keys the pipeline removes; stats receives the source's input counts
for the docs). The registries below fix the order in which sources are read; that order, the id rules
and the final sorts make the output deterministic.
"""

import argparse
import os
import sys
from collections import Counter

from . import dle, kernels, lambda_labs, llm, memory, nccl_tests, neusight, power, vidur_collectives, vidur_ops
from .checks import REPO_ROOT, check_catalog, check_outputs
from .common import assign_point_ids, dedupe
from .docs import write_readme, write_source_docs
from .outputs import copy_raw, write_manifest, write_memory_table, write_power_table, write_tables
from .codebase import assign_codebases
from .run_facts import describe_runs
from .runs_common import assign_run_ids
from .schema import COLL_COLUMNS, OPS_COLUMNS, RUNS_COLUMNS

DESCRIPTION = "Build ptp's training tables from the published GPU measurements in shared/data."

# table -> source modules, in build order
RUN_SOURCES = (dle, lambda_labs, llm)
COLL_SOURCES = (vidur_collectives, nccl_tests)
OP_SOURCES = (neusight, vidur_ops, kernels)
# row "source" -> point_id prefix
COLL_ID_PREFIX = {"vidur": "vidur", "nccl-tests": "nccl"}
OP_ID_PREFIX = {"neusight": "neusight", "vidur": "vidur", "xla": "xla", "deepgemm": "deepgemm",
                "tilelang": "tilelang"}


def coll_key(r):
    return "|".join([r["source_ref"], r["collective"], str(r["size_bytes"]), str(r["ranks"]),
                     str(r["nodes"]), str(r["ranks_per_node"]), str(r["in_place"])])


def build_runs(shared, stats):
    runs = [r for mod in RUN_SOURCES for r in mod.build(shared, stats)]
    runs, dups = dedupe(runs, RUNS_COLUMNS, "run_id")
    assign_run_ids(runs)  # ids from the rows as published, before the facts below describe them
    describe_runs(runs)
    assign_codebases(runs)
    runs.sort(key=lambda r: (r["source"], r["run_id"]))
    stats["runs_by_source"] = Counter(r["source"] for r in runs)
    return runs, dups


def build_collectives(shared, stats):
    colls = [r for mod in COLL_SOURCES for r in mod.build(shared, stats)]
    for r in colls:
        r["point_id"] = ""
    colls, dups = dedupe(colls, COLL_COLUMNS, "point_id")
    assign_point_ids(colls, coll_key, "")
    for r in colls:
        r["point_id"] = COLL_ID_PREFIX[r["source"]] + r["point_id"]
        r.pop("_line", None)
    colls.sort(key=lambda r: (r["source"], r["point_id"]))
    dups += stats["vidur_tidy_dups"]
    stats["coll_dups"] = dups
    return colls, dups


def build_ops(shared, stats):
    ops = [r for mod in OP_SOURCES for r in mod.build(shared, stats)]
    for r in ops:
        r["point_id"] = ""
    ops, dups = dedupe(ops, OPS_COLUMNS, "point_id")
    assign_point_ids(ops, lambda r: r["_key"], "")
    for r in ops:
        r["point_id"] = OP_ID_PREFIX[r["source"]] + r["point_id"]
        r.pop("_key", None)
    ops.sort(key=lambda r: (r["source"], r["point_id"]))
    return ops, dups


def build(shared):
    """All three tables from shared/data: (runs, colls, ops, stats, dups); nothing is written.

    The peak-memory table (memory.csv, one row per published measurement, no dedupe) is not a
    training table: its rows are in stats["memory_rows"]; the measured-power table (power.csv, the same
    way) in stats["power_rows"]."""
    stats = {}
    runs, run_dups = build_runs(shared, stats)
    colls, coll_dups = build_collectives(shared, stats)
    ops, op_dups = build_ops(shared, stats)
    stats["memory_rows"] = memory.build(shared, stats)
    stats["power_rows"] = power.build(shared, stats)
    dups = (run_dups, coll_dups, op_dups)
    stats["dedup_text"] = "dropped: " + ", ".join(
        "%s: %d" % (name, n) for name, n in zip(("runs", "collectives", "ops"), dups))
    return runs, colls, ops, stats, dups


def print_summary(runs, colls, ops, stats, dups):
    print("runs.csv        %6d rows  %s" % (len(runs), dict(sorted(stats["runs_by_source"].items()))))
    print("collectives.csv %6d rows  %s" % (len(colls), dict(sorted(Counter(r["source"] for r in colls).items()))))
    print("ops.csv         %6d rows  %s" % (len(ops), dict(sorted(Counter(r["source"] for r in ops).items()))))
    print("exact duplicates dropped: runs %d, collectives %d, ops %d" % dups)
    print("runs by precision:", dict(sorted(Counter(r["precision"] for r in runs).items())))
    print("runs by gpu:", dict(sorted(Counter(r["gpu"] or "(unmapped)" for r in runs).items())))
    print("runs by model:", dict(sorted(Counter(r["model"] or "(unmapped)" for r in runs).items())))
    print("runs with step_time_s:", sum(1 for r in runs if r["step_time_s"]), "of", len(runs))
    mem = stats["memory_rows"]
    print("memory.csv      %6d rows  %s" % (len(mem), dict(sorted(Counter(r["origin"] for r in mem).items()))))
    print("memory rows with a zoo model and a catalog GPU:", sum(1 for r in mem if r["model"] and r["gpu"]))
    pw = stats["power_rows"]
    print("power.csv       %6d rows  %s" % (len(pw), dict(sorted(Counter(r["origin"] for r in pw).items()))))


def main(argv=None):
    ap = argparse.ArgumentParser(description=DESCRIPTION)
    ap.add_argument("--shared", required=True, help="path to shared/data")
    ap.add_argument("--out", required=True, help="output directory (datasets/)")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    shared = os.path.normpath(args.shared)
    out = os.path.normpath(args.out)
    os.makedirs(out, exist_ok=True)

    runs, colls, ops, stats, dups = build(shared)

    problems = check_outputs(runs, colls, ops)
    problems += check_catalog(runs, colls, ops)
    problems += memory.check(stats["memory_rows"], REPO_ROOT)
    problems += power.check(stats["power_rows"], REPO_ROOT)
    if problems:
        for p in problems[:50]:
            print("CHECK FAILED:", p, file=sys.stderr)
        raise SystemExit("%d check failures" % len(problems))

    write_tables(out, runs, colls, ops)
    write_memory_table(out, stats["memory_rows"])
    write_power_table(out, stats["power_rows"])
    stats["raw_copied"], stats["raw_total"] = copy_raw(shared, out)
    write_readme(out, runs, colls, ops, stats)
    write_source_docs(out, stats, runs, colls, ops)
    write_manifest(shared, out, (len(runs), len(colls), len(ops)), dups, memory_rows=len(stats["memory_rows"]),
                   power_rows=len(stats["power_rows"]))

    if not args.quiet:
        print_summary(runs, colls, ops, stats, dups)
    return 0
