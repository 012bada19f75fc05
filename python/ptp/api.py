"""The package's calls, each a ptp-predict command line: ``predict`` (one job), ``predict_time`` (the
paper's one-call form), ``sweep``, ``search`` and ``calibrate``."""

import csv
import io
import json
import os
import tempfile

from . import _session
from .prediction import Prediction, SearchResult

# The precision names of the paper's predict_time (arXiv 2604.16145) -> ptp's precision ids. ptp's
# own ids (ptp-predict --list precisions) are taken as they are.
PRECISION_ALIASES = {
    "mixed_fp16_fp32": "amp_fp16",
    "mixed_bf16_fp32": "amp_bf16",
    "fp16": "fp16",
    "bf16": "bf16",
    "fp32": "fp32",
}

# predict_time's GPU when none is named: the paper's reference GPU.
DEFAULT_GPU = "a100-sxm4-80gb"


def predict(job, bundle=None, analytical=False, *, config_dir=None, set=(), unset=(), calibrate=None,
            calibrate_log=(), log_format=None):
    """The prediction of one job, as ``ptp-predict JOB --format json`` makes it.

    ``job`` is a dict (the job spec's fields), a YAML string or a path. ``set`` takes ``"key=value"``
    strings or ``(key, value)`` pairs (``--set``), ``unset`` dotted keys (``--unset``).
    ``calibrate`` is a MEASURED.csv (``--calibrate``), ``calibrate_log`` training logs of the job
    (``--calibrate-log``). Raises JobSpecError with the CLI's message on bad input.
    """
    out, notices, _ = _session.run(job, bundle=bundle, analytical=analytical, config_dir=config_dir, set=set,
                                   unset=unset, calibrate=calibrate, calibrate_log=calibrate_log,
                                   log_format=log_format)
    return Prediction(json.loads(out), notices)


class IterationSeconds(float):
    """Seconds per iteration (a float), with the whole Prediction on ``.prediction``."""

    prediction = None


def predict_time(model, precision, gpus=1, batch_size=None, gpu=DEFAULT_GPU, *, bundle=None, analytical=False,
                 config_dir=None, **fields):
    """The paper's call: ``predict_time(model="resnet50", precision="mixed_fp16_fp32", gpus=8,
    batch_size=256)`` -> seconds per iteration.

    ``batch_size`` is the micro-batch per GPU. Any other job field is a keyword, its dots written as
    ``__`` (``parallelism__tensor=2``, ``run__steps=1000``).
    """
    job = {"model": model, "precision": PRECISION_ALIASES.get(precision, precision),
           "cluster": {"gpu": gpu, "num_gpus": gpus}}
    if batch_size is not None:
        job["batch_size"] = batch_size
    for key, value in fields.items():
        _put(job, key.split("__"), value)
    prediction = predict(job, bundle=bundle, analytical=analytical, config_dir=config_dir)
    seconds = IterationSeconds(prediction.iteration_s)
    seconds.prediction = prediction
    return seconds


def _default_threads():
    """The CLI's default: this machine's cores, 1 to 256."""
    return max(1, min(256, os.cpu_count() or 1))


def _put(tree, path, value):
    for part in path[:-1]:
        node = tree.setdefault(part, {})
        if not isinstance(node, dict):
            raise TypeError("job field " + ".".join(path) + ": " + part + " is a value, not a section")
        tree = node
    tree[path[-1]] = value


def sweep(job, axes, bundle=None, analytical=False, *, config_dir=None, set=(), unset=(), calibrate=None,
          threads=None):
    """One Prediction per point of the cross-product of ``axes`` (key -> values, ``--sweep``), in the
    CLI's order; each row's swept values are its ``settings``. A point the job cannot take (a precision
    the GPU lacks) is a row with ``valid`` False, as in the CLI."""
    flags = [key + "=" + ",".join(_session.yaml_scalar(v) for v in values) for key, values in axes.items()]
    out, notices, _ = _session.run(job, bundle=bundle, analytical=analytical, config_dir=config_dir, set=set,
                                   unset=unset, sweep=flags, format="jsonl", calibrate=calibrate,
                                   threads=threads or _default_threads())
    return [Prediction(json.loads(line), notices) for line in out.splitlines() if line.strip()]


def search(job, objective="time", top=10, space=None, bundle=None, analytical=False, *, config_dir=None, set=(),
           unset=(), calibrate=None, threads=None):
    """The configurations around the job that fit, best first (``--search``). ``space`` is a
    SPACE.yaml path or a dict of key -> values replacing the default axes (``--space``)."""
    with tempfile.TemporaryDirectory(prefix="ptp-space-") as scratch:
        if isinstance(space, dict):
            path = os.path.join(scratch, "space.yaml")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(space, f)
            space = path
        out, notices, _ = _session.run(job, bundle=bundle, analytical=analytical, config_dir=config_dir, set=set,
                                       unset=unset, search=True, objective=objective, top=top, space=space,
                                       calibrate=calibrate, threads=threads or _default_threads())
    return SearchResult(json.loads(out), notices)


def calibrate(job, measured=None, logs=(), log_format=None, bundle=None, analytical=False, *, config_dir=None,
              set=(), unset=()):
    """The job predicted after fitting the stack to measured steps (``--calibrate`` / ``--calibrate-log``).

    ``measured`` is a MEASURED.csv path (columns job, step_time_s) or a list of (job path, seconds)
    pairs; ``logs`` are training logs of ``job`` itself.
    """
    with tempfile.TemporaryDirectory(prefix="ptp-measured-") as scratch:
        if measured is not None and not isinstance(measured, (str, os.PathLike)):
            path = os.path.join(scratch, "measured.csv")
            write_measured_csv(path, measured)
            measured = path
        return predict(job, bundle, analytical, config_dir=config_dir, set=set, unset=unset, calibrate=measured,
                       calibrate_log=logs, log_format=log_format)


def write_measured_csv(path, rows):
    """A MEASURED.csv of (job path, step seconds) rows, job paths made absolute."""
    text = io.StringIO()
    out = csv.writer(text, lineterminator="\n")
    out.writerow(["job", "step_time_s"])
    for job_path, seconds in rows:
        out.writerow([os.path.abspath(os.fspath(job_path)), repr(float(seconds))])
    write_text_atomically(path, text.getvalue())


def write_text_atomically(path, text):
    """Writes ``path`` whole or not at all (a temporary file beside it, renamed over it); makes its
    folder when missing."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, scratch = tempfile.mkstemp(prefix=".ptp-", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(scratch, path)
    except BaseException:
        if os.path.exists(scratch):
            os.unlink(scratch)
        raise
