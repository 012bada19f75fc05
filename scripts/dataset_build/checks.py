"""Output checks run by the pipeline before anything is written.

check_outputs: value sanity (positive finite rates and times, step time consistent with throughput and
global batch, allowed precision / model / measurement ids, median inside [min, max], unique ids).
check_catalog: every emitted GPU / fabric id exists in the repository's configs/.
Both return a list of problem strings (empty = pass).
"""

import os

from .catalog import model_id_allowed
from .schema import MEASUREMENTS, PRECISIONS

# the ptp repository root (scripts/dataset_build/ is two levels below it)
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


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
        if r["precision"] not in PRECISIONS:
            problems.append("runs %s: precision %s" % (r["run_id"], r["precision"]))
        if r["model"] and not model_id_allowed(r["model"]):
            problems.append("runs %s: model id %s" % (r["run_id"], r["model"]))
        if r["measurement"] not in MEASUREMENTS:
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


def check_catalog(runs, colls, ops, root=None):
    """When run inside the ptp repository, every emitted GPU / fabric id must exist in configs/."""
    root = REPO_ROOT if root is None else root
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
