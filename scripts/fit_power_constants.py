#!/usr/bin/env python3
"""Fits the power model's constants (libpredict energy.hpp) on datasets/power.csv and prints them
with their fit error and leave-one-GPU-out error. Standard library + numpy; reads nothing else.

  python3 scripts/fit_power_constants.py [datasets/power.csv]

* idle share of TDP: the Perseus blocking-power rows (a GPU waiting on pipeline communication).
* compute-bound board power share of TDP: Perseus BF16 stage profiles at their maximum SM clock and
  Zeus ResNet-50 / BERT-base at the default (maximum) cap.
* cap settle (board power / binding cap) and the cap time exponent gamma: Zeus rows whose cap binds
  (cap < 0.95 x the configuration's uncapped power); gamma from jobs drawing >= 0.8 TDP uncapped,
  as median(log time ratio / log power ratio).
"""
import collections
import csv
import sys

import numpy as np

path = sys.argv[1] if len(sys.argv) > 1 else "datasets/power.csv"
rows = list(csv.DictReader(open(path, newline="", encoding="utf-8")))


def f(x):
    return float(x) if x else None


block = [(r["gpu"], f(r["avg_power_w_per_gpu"]) / f(r["tdp_w"])) for r in rows if r["origin"] == "perseus_blocking"]
print("idle (blocking) share of TDP:", block, "mean %.3f" % np.mean([b for _, b in block]))

ps = [r for r in rows if r["origin"] == "perseus_stage"]
top = collections.defaultdict(float)
for r in ps:
    top[(r["gpu"], r["model"])] = max(top[(r["gpu"], r["model"])], f(r["sm_clock_mhz"]))
perseus = [f(r["avg_power_w_per_gpu"]) / f(r["tdp_w"]) for r in ps if f(r["sm_clock_mhz"]) == top[(r["gpu"], r["model"])]]
z = [r for r in rows if r["origin"] == "zeus"]
groups = collections.defaultdict(list)
for r in z:
    groups[(r["gpu"], r["model_as_published"], r["batch_size"], r["batch_note"], r["dataset_or_task"])].append(r)
zeus_top = collections.defaultdict(list)
for k, v in groups.items():
    b = max(v, key=lambda r: f(r["power_limit_w"]))
    zeus_top[k[1]].append((int(k[2]), f(b["avg_power_w_per_gpu"]) / f(b["tdp_w"])))
zeus_cb = []
for m in ("resnet50", "bert_base_uncased"):
    v = sorted(zeus_top[m])
    zeus_cb += [x for _, x in v[len(v) // 2:]]  # the larger half of the batch sizes
print("compute-bound share of TDP: Perseus max clock median %.3f (%.2f-%.2f, n=%d); Zeus ResNet-50/BERT "
      "larger batches median %.3f (%.2f-%.2f, n=%d); both %.3f"
      % (np.median(perseus), min(perseus), max(perseus), len(perseus), np.median(zeus_cb), min(zeus_cb),
         max(zeus_cb), len(zeus_cb), np.median(perseus + zeus_cb)))

rec = []
for k, v in groups.items():
    b = max(v, key=lambda r: f(r["power_limit_w"]))
    p0, tdp = f(b["avg_power_w_per_gpu"]), f(b["tdp_w"])
    for r in v:
        cap = f(r["power_limit_w"])
        if r is b or cap >= 0.95 * p0:
            continue
        rec.append((k[0], cap / tdp, p0 / tdp, p0, cap, f(r["duration_s"]) / f(b["duration_s"]),
                    f(r["energy_j"]) / f(b["energy_j"]), f(r["avg_power_w_per_gpu"])))
gpu = np.array([x[0] for x in rec])
cap_t, p0_t, p0, cap, rt, re, pw = np.array([x[1:] for x in rec]).T
hot = p0_t >= 0.8


def fit(train):
    kappa = np.median(pw[train] / cap[train])
    lr = -np.log(kappa * cap / p0)
    ok = train & hot & (lr > 0.02)
    return kappa, np.median(np.log(rt[ok]) / lr[ok])


def err(kappa, gamma, m):
    lr = np.maximum(-np.log(kappa * cap[m] / p0[m]), 0)
    t = np.exp(gamma * lr)
    e = t * kappa * cap[m] / p0[m]
    return 100 * np.mean(np.abs(t / rt[m] - 1)), 100 * np.mean(np.abs(e / re[m] - 1))


kappa, gamma = fit(np.ones(len(rec), bool))
print("binding-cap rows %d; cap settle %.3f; gamma %.3f (from %d rows >= 0.8 TDP)" % (len(rec), kappa, gamma, hot.sum()))
m = hot & (cap_t >= 0.5)
print("in-sample, jobs >= 0.8 TDP, caps >= 0.5 TDP (n=%d): MAPE time %.1f %%, energy %.1f %%" % ((m.sum(),) + err(kappa, gamma, m)))
for g in sorted(set(gpu)):
    k2, g2 = fit(gpu != g)
    m = (gpu == g) & hot & (cap_t >= 0.5)
    if not m.any():
        print("leave out %-16s no held-out job draws >= 0.8 TDP" % g)
        continue
    print("leave out %-16s settle %.3f gamma %.3f -> n=%d MAPE time %.1f %%, energy %.1f %%"
          % ((g, k2, g2, m.sum()) + err(k2, g2, m)))
