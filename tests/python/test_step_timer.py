"""ptp.torch.StepTimer on a tiny CPU model (Debian's python3-torch): the ETA before step 1, the
online calibration after N steps, and the CSV ptp-predict --calibrate reads."""

import csv
import json
import os

import ptp
import ptp.torch
import pytest

from conftest import JOBS_DIR, cli

torch = pytest.importorskip("torch")

JOB = os.path.join(JOBS_DIR, "resnet50-amp-8xa100.yaml")


def train(timer, steps):
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(256, 64), torch.randint(0, 10, (256,))
    for _ in range(steps):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
        timer.step(batch_size=256)


def test_before_step_one_it_prints_the_predicted_step_band_and_eta(workdir):
    lines = []
    timer = ptp.torch.StepTimer(JOB, csv_path="steps.csv", log=lines.append, world_size=8)
    timer.start()
    predicted = cli_prediction()
    assert timer.predicted.to_dict() == predicted
    assert timer.eta_s == pytest.approx(predicted["total"]["seconds"])
    assert timer.total_steps == predicted["total"]["steps"]
    assert lines[0].startswith("predicted step {:.4g} s".format(predicted["iteration"]["seconds"]))
    assert "ETA" in lines[0] and "for {:g} steps left".format(predicted["total"]["steps"]) in lines[0]
    assert ptp.torch.duration_text(predicted["total"]["seconds"]) in lines[0]


def test_after_n_steps_the_eta_is_ptp_predict_calibrate_on_the_csv_it_wrote(workdir):
    lines = []
    with ptp.torch.StepTimer(JOB, csv_path="steps.csv", calibrate_after=20, update_every=10, log=lines.append,
                             world_size=8, background=False, overhead_share=1.0) as timer:
        train(timer, 20)
        assert timer.calibrations == 1
        cli_calibrated = cli_prediction("--calibrate", timer.csv_path)
        assert timer.prediction.to_dict() == cli_calibrated
        remaining = (timer.total_steps - 20) / timer.total_steps
        assert timer.eta_s == pytest.approx(cli_calibrated["total"]["seconds"] * remaining)
        # MEASURED.csv: the one point of the steady steps, their median (the warm-up rule dropped at
        # least the first); the steps log: every step timed.
        with open("steps.csv", newline="") as f:
            (row,) = list(csv.DictReader(f))
        with open("steps.steps.csv", newline="") as f:
            timed = [float(r["step_time_s"]) for r in csv.DictReader(f)]
        assert row["job"] == JOB
        assert len(timed) == int(row["steps_timed"]) == 20
        assert 3 <= int(row["steps_used"]) < 20
        steady = sorted(timed[20 - int(row["steps_used"]):])
        assert float(row["step_time_s"]) == pytest.approx(steady[len(steady) // 2], rel=0.2)
        # The steps log, read as a training log, gives the same calibration.
        from_log = cli_prediction("--calibrate-log", timer.steps_log_path)
        assert from_log["iteration"]["seconds"] == pytest.approx(cli_calibrated["iteration"]["seconds"], rel=1e-9)
        # The calibrated step is the CPU's, nothing like the A100 prediction.
        assert timer.prediction.iteration_s == pytest.approx(float(row["step_time_s"]), rel=0.01)
        train(timer, 10)
        assert timer.calibrations == 2
    assert any(line.startswith("measured ") and "calibrated step" in line for line in lines)
    assert timer.prediction.to_dict() == cli_prediction("--calibrate", timer.csv_path)


def test_calibrations_are_spaced_to_their_overhead_share(workdir):
    with ptp.torch.StepTimer(JOB, csv_path="steps.csv", calibrate_after=4, update_every=1, log=lambda _: None,
                             world_size=8, background=False, overhead_share=0.001) as timer:
        train(timer, 30)
        # Each calibration costs milliseconds, so the next waits seconds: 30 fast steps get one.
        assert timer.calibrations == 1
        assert timer.calibration_seconds > 0


def test_background_calibration_gives_the_same_answer(workdir):
    with ptp.torch.StepTimer(JOB, csv_path="steps.csv", calibrate_after=8, update_every=1000, log=lambda _: None,
                             world_size=8) as timer:
        train(timer, 8)
        timer.flush()
        assert timer.calibrations == 1
        assert timer.prediction.to_dict() == cli_prediction("--calibrate", timer.csv_path)


def test_it_warns_when_the_loop_runs_another_configuration(workdir):
    lines = []
    with ptp.torch.StepTimer(JOB, csv_path="steps.csv", calibrate_after=4, log=lines.append, world_size=1,
                             precision="mixed_bf16_fp32", background=False) as timer:
        train(timer, 4)
    joined = "\n".join(lines)
    assert "the loop runs 1 processes, the job 8 GPUs" in joined
    assert "the loop trains in mixed_bf16_fp32, the job in amp_fp16" in joined
    assert "micro-batch" not in joined  # 256, as the job says
    assert timer.warnings == ["precision", "world size"]


def test_a_dict_job_is_written_beside_the_csv(workdir):
    job = {"model": "resnet50", "precision": "amp_bf16", "batch_size": 64,
           "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 1}, "run": {"steps": 500}}
    with ptp.torch.StepTimer(job, csv_path="run/steps.csv", calibrate_after=6, log=lambda _: None,
                             background=False, world_size=1) as timer:
        train(timer, 6)
    assert os.path.isfile("run/steps.job.yaml")
    assert json.loads(open("run/steps.job.yaml").read()) == job
    assert timer.total_steps == 500
    assert timer.prediction.to_dict()["job"] == os.path.abspath("run/steps.job.yaml")


def test_without_a_run_length_there_is_no_eta_until_steps_are_given(workdir):
    job = {"model": "resnet50", "precision": "amp_fp16", "batch_size": 64,
           "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 1}}
    lines = []
    timer = ptp.torch.StepTimer(job, csv_path="steps.csv", log=lines.append, world_size=1)
    timer.start()
    assert timer.eta_s is None and "no ETA" in lines[0]
    timer = ptp.torch.StepTimer(job, csv_path="steps.csv", log=lines.append, world_size=1, steps=1000)
    assert timer.eta_s == pytest.approx(1000 * timer.predicted.iteration_s)


def test_too_few_steps_to_calibrate_is_refused():
    with pytest.raises(ValueError):
        ptp.torch.StepTimer(JOB, calibrate_after=3)


def test_framework_precision_names():
    assert ptp.torch.precision_of_lightning("bf16-mixed") == "amp_bf16"
    assert ptp.torch.precision_of_lightning(16) == "amp_fp16"
    assert ptp.torch.precision_of_lightning("32-true") == "fp32"

    class Args:
        fp16, bf16, tf32 = False, True, False
    assert ptp.torch.precision_of_hf(Args) == "amp_bf16"
    Args.bf16 = False
    assert ptp.torch.precision_of_hf(Args) == "fp32"


def cli_prediction(*args):
    return json.loads(cli(JOB, *args, "--format", "json")[0])
