"""StepTimer: ptp in the training loop. It prints the predicted step and ETA before step 1, times the
steps the loop runs, and after ``calibrate_after`` of them calibrates the prediction to them (ptp's
own calibration, the one ``ptp-predict --calibrate`` runs) and prints the ETA it gives, again every
``update_every`` steps.

    with ptp.torch.StepTimer("job.yaml") as timer:
        for batch in loader:
            train_step(batch)
            timer.step()

The steady steps go to a MEASURED.csv (``csv_path``) that ``ptp-predict JOB --calibrate CSV``
reads; the ETA printed after N steps is that command's answer. Timing uses CUDA events when the
loop runs on CUDA (read without synchronising), else the wall clock. Calibrations run on a worker
thread (libpredict releases the GIL) and are spaced so that they take at most ``overhead_share``
(0.1 %) of the loop's time; ``step()`` itself is a clock read and an append. Adapters:
``ptp.lightning.StepTimerCallback``, ``ptp.transformers.StepTimerCallback``.

``describe(module_or_config, job)`` fills a job's model from a HF config or the module itself.
"""

import os
import sys
import threading
import time

from . import _core
from .api import PRECISION_ALIASES, predict, write_text_atomically
from .model_description import describe
from .step_clocks import CudaClock, clock_for

__all__ = ["StepTimer", "describe", "duration_text", "measured_world_size", "precision_of_hf",
           "precision_of_lightning", "LIGHTNING_PRECISIONS", "OVERHEAD_SHARE"]


def _csv_cell(text):
    """A CSV cell, quoted when it holds a comma, quote or newline."""
    if any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def _log_to_stderr(line):
    print("ptp: " + line, file=sys.stderr, flush=True)


def duration_text(seconds):
    """A duration as "2 h 05 min", "4 min 10 s" or "3.2 s"."""
    if seconds >= 3600:
        hours, rest = divmod(int(round(seconds)), 3600)
        return "{} h {:02d} min".format(hours, rest // 60)
    if seconds >= 60:
        minutes, rest = divmod(int(round(seconds)), 60)
        return "{} min {:02d} s".format(minutes, rest)
    return "{:.3g} s".format(seconds)


def measured_world_size():
    """The processes training: torch.distributed's world when initialised, else $WORLD_SIZE, else 1."""
    try:
        import torch.distributed as dist
        if dist.is_available() and dist.is_initialized():
            return dist.get_world_size()
    except ImportError:
        pass
    try:
        return int(os.environ.get("WORLD_SIZE", "1"))
    except ValueError:
        return 1


# The share of the loop's time calibrations may take: after each one the next waits until the loop
# has run cost / share seconds (a 3 ms calibration: 3 s of training), whatever update_every says.
OVERHEAD_SHARE = 0.001


class StepTimer:
    """Times optimizer steps and calibrates the job's prediction to them (see the module's doc).

    ``job``: a dict, YAML string or path, as for ptp.predict. ``steps``: the steps of the run
    (default: the job's own, from its run section). ``world_size``, ``micro_batch``, ``precision``:
    what the loop really runs (world size default: torch.distributed's), checked against the job.
    ``background``: calibrate on a worker thread (False: inside ``step()``, for tests and debugging).
    ``update_every``: steps between calibrations at least; ``overhead_share``: the share of the
    loop's wall time they may take at most (a calibration's cost defers the next one).

    Files, written whole at each calibration: ``csv_path``, a MEASURED.csv with the one point the
    steady steps make (their median, as a training log's point is), and beside it
    ``<csv>.steps.csv``, every step timed (a step_time_s log that ``--calibrate-log`` reads, with
    the same warm-up rule); a job given as a dict or text is written to ``<csv>.job.yaml``.
    """

    def __init__(self, job, *, steps=None, calibrate_after=20, update_every=20, csv_path="ptp_measured_steps.csv",
                 bundle=None, analytical=False, config_dir=None, device=None, world_size=None, micro_batch=None,
                 precision=None, log=_log_to_stderr, background=True, overhead_share=OVERHEAD_SHARE):
        if not 0 < overhead_share <= 1:
            raise ValueError("overhead_share must be in (0, 1]")
        if calibrate_after < _core.min_timed_steps:
            raise ValueError("calibrate_after must be at least {} (a warm-up step and {} steady ones)".format(
                _core.min_timed_steps, _core.min_timed_steps - 1))
        if update_every < 1:
            raise ValueError("update_every must be at least 1")
        self.csv_path = os.path.abspath(os.fspath(csv_path))
        self.steps_log_path = os.path.splitext(self.csv_path)[0] + ".steps.csv"
        self.job_path = self._job_file(job)
        self._predict_args = dict(bundle=bundle, analytical=analytical, config_dir=config_dir)
        self.calibrate_after = calibrate_after
        self.update_every = update_every
        self.overhead_share = overhead_share
        self.log = log
        self.background = background
        self.device = device
        self.world_size = world_size
        self.micro_batch = micro_batch
        self.precision = precision
        self.predicted = predict(self.job_path, **self._predict_args)
        self.prediction = self.predicted  # the latest: calibrated once steps were measured
        self.total_steps = steps if steps is not None else self.predicted.total.steps
        self.steps_done = 0
        self.calibrations = 0
        self.calibration_seconds = 0.0  # wall time the calibrations took, worker or not
        self._clock = None
        self._next_step = calibrate_after  # the step count the next calibration waits for
        self._next_time = 0.0              # ... and the perf_counter() it waits for (OVERHEAD_SHARE)
        self._calibrated_steps = 0
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._worker = None
        self._closing = False
        self._warned = set()

    def _job_file(self, job):
        """The job as a file the CSV can name: a path as given, else the job's text beside the CSV."""
        from ._session import job_source
        name, text = job_source(job)
        if text is None:
            return os.path.abspath(name)
        path = os.path.splitext(self.csv_path)[0] + ".job.yaml"
        write_text_atomically(path, text)
        return path

    # --- the loop's side -------------------------------------------------------------------------
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def start(self):
        """Prints the prediction and starts the clock: the first step ends at the next ``step()``."""
        p = self.predicted
        low, high = p.band
        self.log("predicted step {:.4g} s (80 % band {:.4g}-{:.4g} s) on {} GPUs, {}; {}".format(
            p.iteration_s, low, high, p.num_gpus, p.precision, self._eta_text(p, self._eta(p, 0))))
        self._check_settings()
        self._clock = clock_for(self.device)
        self._clock.mark()

    def step(self, batch_size=None):
        """Marks the end of one optimizer step. ``batch_size``: the micro-batch it ran, when known."""
        if self._clock is None:
            self.start()
        self._clock.mark()
        self.steps_done += 1
        if batch_size is not None and self.micro_batch is None:
            self.micro_batch = batch_size
        if self.steps_done >= self._next_step and time.perf_counter() >= self._next_time:
            self._next_step = self.steps_done + self.update_every
            if not self.background:
                self._calibrate()
            elif self._idle.is_set():  # else the calibration in flight is the update
                self._idle.clear()
                self._ensure_worker()
                self._wake.set()

    def close(self):
        """Waits for a calibration in flight, makes a last one over every step timed, and stops
        the worker."""
        self.flush()
        if self.steps_done >= self.calibrate_after and self.steps_done != self._calibrated_steps:
            self._calibrate()
        if self._worker is not None:
            self._closing = True
            self._wake.set()
            self._worker.join()
            self._worker = None

    def flush(self):
        """Waits for the calibration in flight, if any."""
        self._idle.wait()

    # --- calibration -----------------------------------------------------------------------------
    def _ensure_worker(self):
        if self._worker is None:
            self._closing = False
            self._worker = threading.Thread(target=self._work, name="ptp-step-timer", daemon=True)
            self._worker.start()

    def _work(self):
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._closing:
                return
            try:
                self._calibrate()
            finally:
                self._idle.set()

    def _calibrate(self):
        with self._lock:
            started = time.perf_counter()
            try:
                self._calibrate_now()
            except Exception as err:  # the loop must go on: a failed update is said, not raised
                self.log("calibration failed: " + str(err))
            finally:
                cost = time.perf_counter() - started
                self.calibration_seconds += cost
                self._next_time = time.perf_counter() + cost / self.overhead_share

    def _calibrate_now(self):
        if isinstance(self._clock, CudaClock) and not self.background:
            self._clock.synchronize()
        seconds = self._clock.durations()
        if len(seconds) < _core.min_timed_steps:
            return
        median, spread, dropped = _core.steady_state(seconds, self.steps_log_path)
        write_text_atomically(self.steps_log_path, "step,step_time_s\n" + "".join(
            "{},{!r}\n".format(i + 1, s) for i, s in enumerate(seconds)))
        write_text_atomically(self.csv_path, "job,step_time_s,steps_used,steps_timed,spread\n{},{!r},{},{},{!r}\n".format(
            _csv_cell(self.job_path), median, len(seconds) - dropped, len(seconds), spread))
        self.prediction = predict(self.job_path, calibrate=self.csv_path, **self._predict_args)
        self._calibrated_steps = len(seconds)
        self.calibrations += 1
        self._check_settings()
        p = self.prediction
        self.log("measured {:.4g} s/step (median of {} steady steps of {}, spread {:.1f} %): calibrated step {:.4g} s, {}"
                 .format(median, len(seconds) - dropped, len(seconds), 100 * spread, p.iteration_s,
                         self._eta_text(p, self.eta_s)))

    def _eta(self, p, steps_done):
        """Seconds left of the run after ``steps_done`` steps, None without a run length: the steps
        left at the run's predicted seconds per step (evaluations and checkpoints included)."""
        if self.total_steps is None:
            return None
        total = p.total
        per_step = total.seconds / total.steps if total.seconds and total.steps else p.iteration_s
        return per_step * max(0.0, self.total_steps - steps_done)

    def _eta_text(self, p, eta):
        if eta is None:
            return "no ETA (the job states no run length: run.steps, epochs or tokens, or steps=)"
        low, high = p.band
        return "ETA {} ({}-{}) for {:g} steps left".format(
            duration_text(eta), duration_text(eta * low / p.iteration_s), duration_text(eta * high / p.iteration_s),
            max(0, self.total_steps - self.steps_done))

    @property
    def eta_s(self):
        """Seconds left, from the latest (calibrated once measured) prediction."""
        return self._eta(self.prediction, self.steps_done)

    def _check_settings(self):
        """Warns once per setting when the loop runs something else than the job says: a
        calibration then fits another configuration's steps to this job."""
        p = self.predicted
        world = self.world_size if self.world_size is not None else measured_world_size()
        job_batch = p.batch_size
        checks = [
            ("world size", world != p.num_gpus,
             "the loop runs {} processes, the job {} GPUs".format(world, p.num_gpus)),
            ("micro-batch", self.micro_batch is not None and job_batch is not None
             and float(self.micro_batch) != float(job_batch),
             "the loop's micro-batch is {}, the job's {}".format(self.micro_batch, job_batch)),
            ("precision", self.precision is not None
             and PRECISION_ALIASES.get(self.precision, self.precision) != p.precision,
             "the loop trains in {}, the job in {}".format(self.precision, p.precision)),
        ]
        for kind, differs, what in checks:
            if differs and kind not in self._warned:
                self._warned.add(kind)
                self.log("warning: " + what + ": the measured steps are not this job's")

    @property
    def warnings(self):
        """The settings (world size, micro-batch, precision) the loop was found to differ in."""
        return sorted(self._warned)


# How the frameworks name the precision they train in -> ptp's precision ids.
LIGHTNING_PRECISIONS = {
    "16-mixed": "amp_fp16", "16": "amp_fp16", "bf16-mixed": "amp_bf16", "bf16": "amp_bf16",
    "16-true": "fp16", "bf16-true": "bf16", "32-true": "fp32", "32": "fp32",
    "transformer-engine": "fp8", "transformer-engine-float16": "fp8",
}


def precision_of_lightning(precision):
    """A Lightning Trainer's ``precision`` ("bf16-mixed", 16, ...) as a ptp precision id, or None."""
    return LIGHTNING_PRECISIONS.get(str(precision))


def precision_of_hf(args):
    """A transformers TrainingArguments' precision (fp16 / bf16 mixed, else FP32 or TF32)."""
    if getattr(args, "bf16", False):
        return "amp_bf16"
    if getattr(args, "fp16", False):
        return "amp_fp16"
    return "tf32" if getattr(args, "tf32", False) else "fp32"
