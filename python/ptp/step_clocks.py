"""Where StepTimer reads step boundaries: CUDA events on the loop's stream, or the wall clock."""

import time


class WallClock:
    """Step boundaries from time.perf_counter()."""

    def __init__(self):
        self._marks = []

    def mark(self):
        self._marks.append(time.perf_counter())

    def durations(self):
        marks = self._marks
        return [b - a for a, b in zip(marks, marks[1:])]


class CudaClock:
    """Step boundaries as CUDA events on the current stream: recording one does not wait for the
    GPU, and only events the GPU has passed are read (query() is non-blocking)."""

    def __init__(self, torch_module):
        self._torch = torch_module
        self._events = []
        self._done = []  # seconds between consecutive completed events

    def mark(self):
        event = self._torch.cuda.Event(enable_timing=True)
        event.record()
        self._events.append(event)

    def durations(self):
        while len(self._events) >= 2 and self._events[1].query():
            first, second = self._events[0], self._events[1]
            self._done.append(first.elapsed_time(second) / 1000.0)
            self._events.pop(0)
        return list(self._done)

    def synchronize(self):
        if self._events:
            self._events[-1].synchronize()


def clock_for(device):
    """CUDA events when the loop runs on CUDA (``device`` names it, or CUDA is initialised), else
    the wall clock. torch is imported only to ask."""
    if device is not None and "cuda" not in str(device):
        return WallClock()
    try:
        import torch as torch_module
    except ImportError:
        return WallClock()
    if torch_module.cuda.is_available() and (device is not None or torch_module.cuda.is_initialized()):
        return CudaClock(torch_module)
    return WallClock()
