"""ptp: precision-aware training-time prediction, in Python.

    import ptp
    seconds = ptp.predict_time(model="resnet50", precision="mixed_fp16_fp32", gpus=8, batch_size=256)
    p = ptp.predict("configs/jobs/bert-large-amp-16xa100.yaml")
    print(p.iteration_s, p.band, p.total.seconds)

Every call is the ptp-predict command line it mirrors, run in this process by the same library;
``Prediction.to_dict()`` is the CLI's JSON. The training-loop hook is ``ptp.torch.StepTimer``, with
adapters in ``ptp.lightning`` and ``ptp.transformers`` (importable where those packages are).
"""

import importlib

from . import _core
from .api import (DEFAULT_GPU, PRECISION_ALIASES, IterationSeconds, calibrate, predict, predict_time, search,
                  sweep, write_measured_csv)
from .errors import JobSpecError
from .prediction import Band, Prediction, SearchResult, SearchRow, Section

__version__ = _core.version().split()[1]
OUTPUT_SCHEMA = _core.output_schema

__all__ = ["Band", "DEFAULT_GPU", "IterationSeconds", "JobSpecError", "OUTPUT_SCHEMA", "PRECISION_ALIASES",
           "Prediction", "SearchResult", "SearchRow", "Section", "calibrate", "predict", "predict_time", "search",
           "sweep", "write_measured_csv"]


def __getattr__(name):
    """ptp.torch, ptp.lightning and ptp.transformers load on first use: ``import ptp`` needs nothing
    beyond the standard library."""
    if name in ("torch", "lightning", "transformers"):
        return importlib.import_module("." + name, __name__)
    raise AttributeError("module 'ptp' has no attribute " + repr(name))
