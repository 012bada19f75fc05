#!/usr/bin/env python3
"""Fits the power model's constants (libpredict energy.hpp) on datasets/power.csv and prints them
with their fit error and leave-one-GPU-out error. Standard library + numpy; reads nothing else.

  python3 scripts/fit_power_constants.py [datasets/power.csv]

* idle share of TDP: the Perseus blocking-power rows (a GPU waiting on pipeline communication).
* waiting power of the Zeus GPUs without a blocking row: Zeus NCF at the default cap. NCF is
  host-bound (its board power stays flat while the batch grows 4096x), so its power is an upper bound
  of the power of a GPU that holds a context and waits; the lowest row is the tightest bound.
* compute-bound activity (kComputeActivity): per row (power - waiting power) / (TDP - waiting
  power), with each GPU's catalog idle_w (configs/gpus/<gpu>.yaml) where it has one, else the idle
  share above; the median over the Perseus BF16 stage profiles at their maximum SM clock. Zeus
  ResNet-50 / BERT-base at the default cap are printed beside it but held out: their epoch averages
  mix phases the step model draws apart, and ptp-eval energy validates on them.
* cap settle (board power / binding cap): Zeus rows whose cap binds (cap < 0.95 x the
  configuration's uncapped power). How the step slows under the cap (the clock model) depends on the
  step model's phases, so ptp-eval energy fits it on the product's own predictions.
"""
import collections
import csv
import functools
import os
import re
import sys

import numpy as np

path = sys.argv[1] if len(sys.argv) > 1 else "datasets/power.csv"
rows = list(csv.DictReader(open(path, newline="", encoding="utf-8")))


def f(x):
    return float(x) if x else None


block = [(r["gpu"], f(r["avg_power_w_per_gpu"]) / f(r["tdp_w"])) for r in rows if r["origin"] == "perseus_blocking"]
idle_share = np.mean([b for _, b in block])
print("idle (blocking) share of TDP:", block, "mean %.3f" % idle_share)


@functools.lru_cache(maxsize=None)
def catalog_idle_w(gpu):
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "configs", "gpus", gpu + ".yaml")
    m = re.search(r"^idle_w:\s*([0-9.]+)", open(path, encoding="utf-8").read(), re.M) if os.path.exists(path) else None
    return float(m.group(1)) if m else None


ncf = collections.defaultdict(list)
ncf_cap = collections.defaultdict(float)
for r in rows:
    if r["origin"] == "zeus" and r["model_as_published"] == "ncf":
        ncf_cap[(r["gpu"], r["batch_size"])] = max(ncf_cap[(r["gpu"], r["batch_size"])], f(r["power_limit_w"]))
for r in rows:
    if r["origin"] == "zeus" and r["model_as_published"] == "ncf" and f(r["power_limit_w"]) == ncf_cap[(r["gpu"], r["batch_size"])]:
        ncf[r["gpu"]].append((int(r["batch_size"]), f(r["avg_power_w_per_gpu"])))
for g, v in sorted(ncf.items()):
    p = [w for _, w in v]
    print("host-bound NCF %-16s batch %d-%d: %.1f-%.1f W (max/min %.2f); lowest %.1f W; catalog idle_w %s"
          % (g, min(b for b, _ in v), max(b for b, _ in v), min(p), max(p), max(p) / min(p), min(p), catalog_idle_w(g)))


def idle_w(gpu, tdp):
    w = catalog_idle_w(gpu)
    return w if w else idle_share * tdp


def activity(r):
    tdp, idle = f(r["tdp_w"]), idle_w(r["gpu"], f(r["tdp_w"]))
    return (f(r["avg_power_w_per_gpu"]) - idle) / (tdp - idle)


ps = [r for r in rows if r["origin"] == "perseus_stage"]
top = collections.defaultdict(float)
for r in ps:
    top[(r["gpu"], r["model"])] = max(top[(r["gpu"], r["model"])], f(r["sm_clock_mhz"]))
perseus_rows = [r for r in ps if f(r["sm_clock_mhz"]) == top[(r["gpu"], r["model"])]]
perseus = [f(r["avg_power_w_per_gpu"]) / f(r["tdp_w"]) for r in perseus_rows]
z = [r for r in rows if r["origin"] == "zeus"]
groups = collections.defaultdict(list)
for r in z:
    groups[(r["gpu"], r["model_as_published"], r["batch_size"], r["batch_note"], r["dataset_or_task"])].append(r)
zeus_top = collections.defaultdict(list)
for k, v in groups.items():
    b = max(v, key=lambda r: f(r["power_limit_w"]))
    zeus_top[k[1]].append((int(k[2]), f(b["avg_power_w_per_gpu"]) / f(b["tdp_w"]), activity(b)))
zeus_cb, zeus_act = [], []
for m in ("resnet50", "bert_base_uncased"):
    v = sorted(zeus_top[m])
    zeus_cb += [x for _, x, _ in v[len(v) // 2:]]  # the larger half of the batch sizes
    zeus_act += [a for _, _, a in v[len(v) // 2:]]
print("compute-bound share of TDP: Perseus max clock median %.3f (%.2f-%.2f, n=%d); Zeus ResNet-50/BERT "
      "larger batches median %.3f (%.2f-%.2f, n=%d); both %.3f"
      % (np.median(perseus), min(perseus), max(perseus), len(perseus), np.median(zeus_cb), min(zeus_cb),
         max(zeus_cb), len(zeus_cb), np.median(perseus + zeus_cb)))
perseus_act = [activity(r) for r in perseus_rows]
print("compute-bound activity with each GPU's waiting power: Perseus %.3f (kComputeActivity); "
      "Zeus larger batches, held out, %.3f; both %.3f"
      % (np.median(perseus_act), np.median(zeus_act), np.median(perseus_act + zeus_act)))

rec = []
for k, v in groups.items():
    b = max(v, key=lambda r: f(r["power_limit_w"]))
    p0 = f(b["avg_power_w_per_gpu"])
    for r in v:
        cap = f(r["power_limit_w"])
        if r is b or cap >= 0.95 * p0:
            continue
        rec.append((k[0], cap, f(r["avg_power_w_per_gpu"])))
gpu = np.array([x[0] for x in rec])
cap, pw = np.array([x[1:] for x in rec], dtype=float).T
print("binding-cap rows %d; cap settle (median board power / cap) %.3f" % (len(rec), np.median(pw / cap)))
for g in sorted(set(gpu)):
    print("leave out %-16s settle %.3f" % (g, np.median(pw[gpu != g] / cap[gpu != g])))
print("the cap's clock model (knee clock, exponent above it) is fitted on the step model's own phases by "
      "ptp-eval energy (libeval/src/energy_evaluation.cpp, \"The cap's clock model, fitted here\")")
