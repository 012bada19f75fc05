"""ptp.predict / predict_time / sweep / search / calibrate against the CLI's JSON for the same job."""

import json
import os

import ptp
import pytest

from conftest import JOBS_DIR, cli, cli_json, example_jobs


@pytest.mark.parametrize("job", example_jobs(), ids=os.path.basename)
def test_to_dict_is_the_cli_json_for_every_example_job(job):
    assert ptp.predict(job).to_dict() == cli_json(job)


def test_analytical_is_the_cli_analytical():
    job = os.path.join(JOBS_DIR, "gpt2-xl-bf16-32xh100.yaml")
    p = ptp.predict(job, analytical=True)
    assert p.to_dict() == cli_json(job, "--analytical")
    assert p.predictor.kind == "analytical"


def test_typed_attributes_read_the_json():
    job = os.path.join(JOBS_DIR, "bert-large-amp-16xa100.yaml")
    p = ptp.predict(job)
    d = p.to_dict()
    assert p.iteration_s == d["iteration"]["seconds"]
    assert p.band == ptp.Band(d["iteration"]["low"], d["iteration"]["high"])
    assert p.band.low < p.iteration_s < p.band.high
    assert p.breakdown == d["iteration"]["breakdown"]
    assert p.memory.per_gpu_bytes == d["memory"]["per_gpu_bytes"]
    assert p.total.seconds == d["total"]["seconds"]
    assert p.cost.usd_per_gpu_hour == d["cost"]["usd_per_gpu_hour"]
    assert p.energy.run.facility_kwh == d["energy"]["run"]["facility_kwh"]
    assert p.predictor.kind == d["predictor"]["kind"]
    assert [s.field for s in p.stack] == [s["field"] for s in d["stack"]]
    # Views do not alias the result: editing a to_dict() leaves the prediction as it was.
    d["iteration"]["seconds"] = -1
    assert p.iteration_s > 0


def test_dict_string_and_path_jobs_predict_alike(workdir):
    job = {"model": "resnet50", "precision": "amp_fp16", "batch_size": 128,
           "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 8}}
    text = "model: resnet50\nprecision: amp_fp16\nbatch_size: 128\ncluster:\n  gpu: a100-sxm4-80gb\n  num_gpus: 8\n"
    (workdir / "job.yaml").write_text(text)
    from_path = ptp.predict("job.yaml").to_dict()
    from_dict = ptp.predict(job).to_dict()
    from_text = ptp.predict(text).to_dict()
    assert from_path == cli_json("job.yaml")
    assert from_dict["job"] == "<dict>" and from_text["job"] == "<string>"
    for d in (from_dict, from_text):
        d["job"] = "job.yaml"
        assert d == from_path


def test_predict_time_is_the_cli_on_the_equivalent_yaml(workdir):
    seconds = ptp.predict_time(model="resnet50", precision="mixed_fp16_fp32", gpus=8, batch_size=256,
                               gpu="a100-sxm4-80gb")
    (workdir / "job.yaml").write_text(
        "model: resnet50\nprecision: amp_fp16\nbatch_size: 256\ncluster: {gpu: a100-sxm4-80gb, num_gpus: 8}\n")
    assert seconds == cli_json("job.yaml")["iteration"]["seconds"]
    assert isinstance(seconds, float) and seconds.prediction.iteration_s == seconds


@pytest.mark.parametrize("alias,ptp_id", sorted(ptp.PRECISION_ALIASES.items()))
def test_the_papers_precision_names_are_aliases(alias, ptp_id):
    seconds = ptp.predict_time(model="bert-large", precision=alias, gpus=8, batch_size=16, seq_len=512)
    assert seconds.prediction.precision == ptp_id
    assert seconds == ptp.predict_time(model="bert-large", precision=ptp_id, gpus=8, batch_size=16, seq_len=512)


def test_any_job_field_is_a_keyword_with_dots_as_double_underscores():
    base = dict(model="gpt2-xl", precision="bf16", gpus=32, batch_size=8, gpu="h100-sxm5-80gb", seq_len=1024)
    pp2 = ptp.predict_time(**base, parallelism__pipeline=2, run__steps=1000)
    assert pp2.prediction.parallelism.pipeline == 2
    assert pp2.prediction.total.steps == 1000
    assert pp2 != ptp.predict_time(**base)


def test_set_and_unset_are_the_cli_flags():
    job = os.path.join(JOBS_DIR, "bert-large-amp-16xa100.yaml")
    p = ptp.predict(job, set=["cluster.num_gpus=32", ("precision", "bf16")], unset=["run"])
    assert p.to_dict() == cli_json(job, "--set", "cluster.num_gpus=32", "--set", "precision=bf16", "--unset", "run")


def test_sweep_rows_are_the_cli_jsonl_rows():
    job = os.path.join(JOBS_DIR, "gpt2-xl-bf16-32xh100.yaml")
    rows = ptp.sweep(job, {"cluster.num_gpus": [8, 16, 32], "precision": ["bf16", "fp8"]}, threads=2)
    out, _, _ = cli(job, "--sweep", "cluster.num_gpus=8,16,32", "--sweep", "precision=bf16,fp8", "--format", "jsonl")
    assert [r.to_dict() for r in rows] == [json.loads(line) for line in out.splitlines()]
    assert rows[0].settings == {"cluster.num_gpus": "8", "precision": "bf16"}


def test_search_is_the_cli_search():
    job = os.path.join(JOBS_DIR, "resnet50-amp-8xa100.yaml")
    result = ptp.search(job, top=3, threads=2)
    assert result.to_dict() == json.loads(cli(job, "--search", "--top", "3", "--format", "json")[0])
    assert len(result.rows) == 3 and result.rows[0].rank == 1
    assert result.summary.shown == 3


def test_search_space_as_a_dict(workdir):
    job = os.path.join(JOBS_DIR, "resnet50-amp-8xa100.yaml")
    (workdir / "space.yaml").write_text("precision: [amp_fp16, amp_bf16]\n")
    result = ptp.search(job, space={"precision": ["amp_fp16", "amp_bf16"]}, threads=1)
    cli_result = json.loads(cli(job, "--search", "--space", "space.yaml", "--format", "json")[0])
    assert result.to_dict() == cli_result
    assert {r.prediction.precision for r in result.rows} <= {"amp_fp16", "amp_bf16"}


def test_calibrate_is_the_cli_calibrate(workdir):
    job = os.path.join(JOBS_DIR, "bert-large-amp-16xa100.yaml")
    ptp.write_measured_csv("measured.csv", [(job, 0.61), (job, 0.63)])
    calibrated = ptp.calibrate(job, measured="measured.csv")
    assert calibrated.to_dict() == cli_json(job, "--calibrate", "measured.csv")
    from_pairs = ptp.calibrate(job, measured=[(job, 0.61), (job, 0.63)])
    assert from_pairs.iteration_s == calibrated.iteration_s
    assert calibrated.calibration is not None
    assert abs(calibrated.iteration_s - 0.62) / 0.62 < 0.02
