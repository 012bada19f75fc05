"""StepTimer as a PyTorch Lightning callback: ``Trainer(callbacks=[StepTimerCallback("job.yaml")])``.
Importable only where Lightning is (``lightning`` or ``pytorch_lightning``)."""

try:
    from lightning.pytorch import Callback
except ImportError:
    from pytorch_lightning import Callback

from .torch import StepTimer, precision_of_lightning


class StepTimerCallback(Callback):
    """Times each optimizer step (every ``accumulate_grad_batches`` batches) of ``fit``; the
    trainer's world size and precision are checked against the job. Keyword arguments go to
    StepTimer; the timer is ``.timer``."""

    def __init__(self, job, **timer_args):
        super().__init__()
        self._job = job
        self._timer_args = timer_args
        self.timer = None

    def on_train_start(self, trainer, pl_module):
        args = dict(self._timer_args)
        args.setdefault("world_size", trainer.world_size)
        args.setdefault("precision", precision_of_lightning(trainer.precision))
        args.setdefault("device", pl_module.device)
        self.timer = StepTimer(self._job, **args)
        self.timer.start()

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        if (batch_idx + 1) % max(1, trainer.accumulate_grad_batches) == 0:
            self.timer.step(batch_size=_batch_size(batch))

    def on_train_end(self, trainer, pl_module):
        self.timer.close()


def _batch_size(batch):
    """The leading dimension of the batch's first tensor, or None."""
    while isinstance(batch, (list, tuple)) and batch:
        batch = batch[0]
    if isinstance(batch, dict) and batch:
        return _batch_size(next(iter(batch.values())))
    shape = getattr(batch, "shape", None)
    return int(shape[0]) if shape else None
