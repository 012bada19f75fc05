#!/usr/bin/env python3
"""What the Python package costs, against the CLI (not a test: figures for docs/python.md).

  PYTHONPATH=build/python python3 tests/bench/bench_python.py [build]

1. One prediction: the CLI's in-process time (a `ptp-predict JOB --format json` call's wall time
   less a `ptp-predict --version` call's: exec, loader and exit) against ptp.predict in one
   interpreter, cold (the first call loads the bundle) and warm (the loaded predictor reused).
2. StepTimer: the time the loop spends inside step() (calibrations on the background thread) per
   step, against the step of a small CPU model.
Medians of repeated runs, interleaved so both sides see the same load.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

import ptp
from ptp import _session

build = sys.argv[1] if len(sys.argv) > 1 else "build"
cli = os.path.join(build, "apps", "ptp-predict", "ptp-predict")
job = os.path.abspath("configs/jobs/bert-large-amp-16xa100.yaml")


def wall(args):
    start = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def timed(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


runs = 25
cli_call, cli_start, cold, warm = [], [], [], []
ptp.predict(job)
for _ in range(runs):
    cli_call.append(wall([cli, job, "--format", "json"]))
    cli_start.append(wall([cli, "--version"]))
    _session._sessions.clear()
    cold.append(timed(lambda: ptp.predict(job)))
    warm.append(timed(lambda: ptp.predict(job)))
cli_in_process = statistics.median(cli_call) - statistics.median(cli_start)
print("one prediction (ms, median of {}):".format(runs))
print("  CLI call {:.1f}, of which exec/loader/exit {:.1f}: in-process {:.1f}".format(
    1e3 * statistics.median(cli_call), 1e3 * statistics.median(cli_start), 1e3 * cli_in_process))
print("  ptp.predict cold {:.1f} ({:.2f}x the CLI's in-process), warm {:.1f} ({:.2f}x)".format(
    1e3 * statistics.median(cold), statistics.median(cold) / cli_in_process,
    1e3 * statistics.median(warm), statistics.median(warm) / cli_in_process))

try:
    import torch
except ImportError:
    print("StepTimer: torch not installed, skipped")
    sys.exit(0)
import ptp.torch  # noqa: E402

torch.set_num_threads(1)
model = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(256, 512), torch.randint(0, 10, (256,))


def train_step():
    optimizer.zero_grad()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    optimizer.step()


steps = 1000
inside = []
with tempfile.TemporaryDirectory() as scratch:
    with ptp.torch.StepTimer(job, csv_path=os.path.join(scratch, "steps.csv"), update_every=20,
                             log=lambda _: None, world_size=16) as timer:
        loop_start = time.perf_counter()
        for _ in range(steps):
            train_step()
            t0 = time.perf_counter()
            timer.step()
            inside.append(time.perf_counter() - t0)
        loop = time.perf_counter() - loop_start
    calibrations, calibrating = timer.calibrations, timer.calibration_seconds
step_s = loop / steps
inside.sort()
print("StepTimer over {} steps of {:.2f} ms (CPU, torch on one thread):".format(steps, 1e3 * step_s))
print("  inside step(): median {:.1f} us, p99 {:.1f} us, max {:.0f} us; in all {:.3f} % of the loop".format(
    1e6 * inside[len(inside) // 2], 1e6 * inside[int(0.99 * len(inside))], 1e6 * inside[-1],
    100 * sum(inside) / loop))
print("  {} calibrations on the worker thread took {:.1f} ms = {:.3f} % of the loop's wall time".format(
    calibrations, 1e3 * calibrating, 100 * calibrating / loop))
