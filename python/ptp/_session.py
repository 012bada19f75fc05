"""Loaded predictors, one per (configs, bundle, analytical), shared by every thread, and the one call
that runs a request through libpredict as ``ptp-predict`` would."""

import json
import os
import threading

from . import _core

_sessions = {}
_sessions_lock = threading.Lock()


def session(bundle=None, analytical=False, config_dir=None):
    """The predictor for these settings, loaded on first use (a bundle takes ~50 ms to load)."""
    key = (os.fspath(config_dir) if config_dir else "", os.fspath(bundle) if bundle else "", bool(analytical))
    with _sessions_lock:
        found = _sessions.get(key)
        if found is None:
            found = _core.Session(key[0], key[1], key[2])
            _sessions[key] = found
        return found


def job_source(job):
    """(name, text): a job given as a dict, a YAML string or a path. A dict travels as JSON, which is
    YAML; a string that names a file, or a one-line string ending in .yaml/.yml, is a path."""
    if isinstance(job, dict):
        return "<dict>", json.dumps(job, indent=1)  # a key per line: an error's line names its key
    if isinstance(job, os.PathLike):
        return os.fspath(job), None
    if isinstance(job, str):
        one_line = "\n" not in job
        if one_line and (job.endswith((".yaml", ".yml")) or os.path.isfile(job)):
            return job, None
        return "<string>", job
    raise TypeError("job must be a dict, a YAML string or a path, not " + type(job).__name__)


def run(job, *, bundle=None, analytical=False, config_dir=None, set=(), unset=(), sweep=(), format="json",
        calibrate=None, calibrate_log=(), log_format="", search=False, objective="time", top=10, space=None,
        threads=1):
    """(stdout, stderr lines, exit code) of the ptp-predict command line these arguments spell."""
    name, text = job_source(job)
    request = _core.make_request(
        job_files=[name], job_texts=[] if text is None else [text], sets=[_flag(s) for s in set],
        unsets=list(unset), sweeps=list(sweep), format=format,
        calibrate=os.fspath(calibrate) if calibrate else "",
        calibrate_logs=[os.fspath(p) for p in calibrate_log], log_format=log_format or "", search=search,
        objective=objective, top=int(top), space=os.fspath(space) if space else "", threads=int(threads))
    return session(bundle, analytical, config_dir).run(request)


def _flag(item):
    """A --set value: "key=value", or a (key, value) pair whose value is written as YAML."""
    if isinstance(item, str):
        return item
    key, value = item
    return key + "=" + yaml_scalar(value)


def yaml_scalar(value):
    """A Python value as the YAML a --set flag takes: booleans and None as YAML spells them, lists
    and dicts as JSON (flow YAML), everything else as its text."""
    if isinstance(value, bool) or value is None or isinstance(value, (list, tuple, dict)):
        return json.dumps(value)
    return str(value)
