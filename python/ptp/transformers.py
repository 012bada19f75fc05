"""StepTimer as a Hugging Face ``transformers`` TrainerCallback:
``Trainer(..., callbacks=[StepTimerCallback("job.yaml")])``. Importable only where transformers is."""

from transformers import TrainerCallback

from .torch import StepTimer, precision_of_hf


class StepTimerCallback(TrainerCallback):
    """Times each optimizer step of ``Trainer.train``; the arguments' world size, per-device batch
    and precision are checked against the job. Keyword arguments go to StepTimer (``steps``
    defaults to the Trainer's max_steps); the timer is ``.timer``."""

    def __init__(self, job, **timer_args):
        self._job = job
        self._timer_args = timer_args
        self.timer = None

    def on_train_begin(self, args, state, control, **kwargs):
        timer_args = dict(self._timer_args)
        timer_args.setdefault("world_size", args.world_size)
        timer_args.setdefault("micro_batch", args.per_device_train_batch_size)
        timer_args.setdefault("precision", precision_of_hf(args))
        timer_args.setdefault("device", args.device)
        if state.max_steps:
            timer_args.setdefault("steps", state.max_steps)
        self.timer = StepTimer(self._job, **timer_args)
        self.timer.start()

    def on_step_end(self, args, state, control, **kwargs):
        self.timer.step()

    def on_train_end(self, args, state, control, **kwargs):
        self.timer.close()
