"""Typed views of ptp-predict's JSON (output schema 1): the package's results are that JSON, read."""

import copy
from collections.abc import Mapping
from typing import NamedTuple


class Band(NamedTuple):
    """The 80 % band of the step time, seconds."""

    low: float
    high: float


class Section(Mapping):
    """A JSON object with attribute access (``p.memory.per_gpu_bytes``); nested objects are Sections."""

    __slots__ = ("_data",)

    def __init__(self, data):
        object.__setattr__(self, "_data", data)

    def __getattr__(self, name):
        try:
            return _view(self._data[name])
        except KeyError:
            raise AttributeError(name) from None

    def __getitem__(self, key):
        return _view(self._data[key])

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)

    def __repr__(self):
        return "Section(" + repr(self._data) + ")"

    def to_dict(self):
        return copy.deepcopy(self._data)


def _view(value):
    return Section(value) if isinstance(value, dict) else value


class Prediction:
    """One predicted job: what ``ptp-predict --format json`` prints for it.

    ``to_dict()`` is that JSON object exactly. ``notices`` are the lines the CLI prints on stderr
    (warnings about the job, calibration notes). A sweep row's swept fields are ``settings``.
    """

    def __init__(self, data, notices=()):
        self._data = data
        self.notices = list(notices)

    @property
    def iteration_s(self):
        """Seconds per optimizer step (iteration)."""
        return self._data["iteration"]["seconds"]

    @property
    def band(self):
        it = self._data["iteration"]
        return Band(it["low"], it["high"])

    @property
    def breakdown(self):
        """Seconds of the step by part (forward, backward, communication, ...)."""
        return dict(self._data["iteration"]["breakdown"])

    memory = property(lambda self: _section(self._data, "memory"), doc="Memory per GPU, bytes")
    energy = property(lambda self: _section(self._data, "energy"), doc="Power and energy per step and run")
    total = property(lambda self: _section(self._data, "total"), doc="The run: steps, seconds, GPU-hours, cost")
    cost = property(lambda self: _section(self._data, "cost"), doc="The price the run was costed at")
    predictor = property(lambda self: _section(self._data, "predictor"), doc="What predicted it and how near its data")
    throughput = property(lambda self: _section(self._data, "throughput"))
    parallelism = property(lambda self: _section(self._data, "parallelism"))
    calibration = property(lambda self: _section(self._data, "calibration"), doc="The fit, when calibrated")

    @property
    def stack(self):
        """What the prediction assumed or was told about the stack (overlaps, graphs, compile)."""
        return [Section(s) for s in self._data.get("stack", [])]

    @property
    def settings(self):
        """A sweep row's swept fields, key -> value as given; {} outside a sweep."""
        return dict(self._data.get("sweep") or {})

    valid = property(lambda self: self._data["valid"])
    error = property(lambda self: self._data["error"])
    warnings = property(lambda self: list(self._data.get("warnings") or []))
    model = property(lambda self: self._data["model"])
    precision = property(lambda self: self._data["precision"])
    gpu = property(lambda self: self._data["gpu"])
    num_gpus = property(lambda self: self._data["num_gpus"])
    batch_size = property(lambda self: self._data["batch_size"], doc="Micro-batch per GPU, samples")
    job = property(lambda self: self._data["job"])

    def to_dict(self):
        return copy.deepcopy(self._data)

    def __repr__(self):
        if not self._data.get("valid", True):
            return "Prediction(invalid: " + str(self._data.get("error")) + ")"
        low, high = self.band
        return "Prediction({} {} on {}x {}: {:.4g} s/step [{:.4g}, {:.4g}])".format(
            self.model, self.precision, self.num_gpus, self.gpu, self.iteration_s, low, high)


def _section(data, key):
    value = data.get(key)
    return Section(value) if isinstance(value, dict) else value


class SearchResult:
    """What ``ptp-predict --search --format json`` prints: the counts, the job as written, the rows."""

    def __init__(self, data, notices=()):
        self._data = data
        self.notices = list(notices)
        self.summary = Section(data["search"])
        self.job = Prediction(data["job"])
        self.rows = [SearchRow(r) for r in data["rows"]]

    def to_dict(self):
        return copy.deepcopy(self._data)


class SearchRow:
    """One ranked configuration: its rank, changes from the job, objective and prediction."""

    def __init__(self, data):
        self._data = data
        self.rank = data["rank"]
        self.changes = data["changes"]
        self.objective_value = data["objective_value"]
        self.speedup_vs_job = data["speedup_vs_job"]
        self.prediction = Prediction(data["prediction"])

    def to_dict(self):
        return copy.deepcopy(self._data)
