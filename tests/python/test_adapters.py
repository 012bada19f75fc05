"""The Lightning and transformers adapters, where those packages are installed (skipped otherwise:
Debian 12 packages neither)."""

import os

import pytest

from conftest import JOBS_DIR

JOB = os.path.join(JOBS_DIR, "resnet50-amp-8xa100.yaml")


def test_lightning_callback_times_fit(workdir):
    torch = pytest.importorskip("torch")
    try:
        import lightning.pytorch as pl
    except ImportError:
        pl = pytest.importorskip("pytorch_lightning")
    from ptp.lightning import StepTimerCallback

    class Tiny(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(16, 2)

        def training_step(self, batch, batch_idx):
            x, y = batch
            return torch.nn.functional.cross_entropy(self.layer(x), y)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    data = torch.utils.data.TensorDataset(torch.randn(64 * 8, 16), torch.randint(0, 2, (64 * 8,)))
    callback = StepTimerCallback(JOB, csv_path="steps.csv", calibrate_after=4, update_every=100, background=False,
                                 log=lambda _: None)
    trainer = pl.Trainer(max_steps=8, callbacks=[callback], accelerator="cpu", logger=False,
                         enable_checkpointing=False, enable_progress_bar=False)
    trainer.fit(Tiny(), torch.utils.data.DataLoader(data, batch_size=64))
    assert callback.timer.steps_done == 8
    assert callback.timer.calibrations >= 1
    assert "world size" in callback.timer.warnings  # one CPU process, the job 8 GPUs
    assert os.path.isfile("steps.csv")


def test_transformers_callback_times_train(workdir):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from ptp.transformers import StepTimerCallback

    class Tiny(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(16, 2)

        def forward(self, x, labels):
            return {"loss": torch.nn.functional.cross_entropy(self.layer(x), labels)}

    rows = [{"x": torch.randn(16), "labels": int(i % 2)} for i in range(64 * 8)]
    callback = StepTimerCallback(JOB, csv_path="steps.csv", calibrate_after=4, update_every=100, background=False,
                                 log=lambda _: None)
    args = transformers.TrainingArguments(output_dir="out", max_steps=8, per_device_train_batch_size=64,
                                          report_to=[], use_cpu=True, save_strategy="no")
    trainer = transformers.Trainer(model=Tiny(), args=args, train_dataset=rows, callbacks=[callback])
    trainer.train()
    assert callback.timer.steps_done == 8
    assert callback.timer.calibrations >= 1
    assert "micro-batch" in callback.timer.warnings  # 64, the job 256
