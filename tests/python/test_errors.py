"""Bad input raises ptp.JobSpecError (a ValueError) with the CLI's one-line message and its parts."""

import os

import ptp
import pytest

from conftest import JOBS_DIR, cli


def test_error_is_the_cli_message_with_file_field_line_and_column(workdir):
    (workdir / "bad.yaml").write_text(
        "model: resnet50\nprecision: amp_fp16\nbatch_size: -4\ncluster: {gpu: a100-sxm4-80gb}\n")
    with pytest.raises(ptp.JobSpecError) as caught:
        ptp.predict("bad.yaml")
    _, stderr, code = cli("bad.yaml", check=False)
    assert code == 2
    assert stderr.strip() == "ptp-predict: error: " + str(caught.value)
    err = caught.value
    assert isinstance(err, ValueError)
    assert (err.file, err.field, err.line, err.column) == ("bad.yaml", "batch_size", 3, 13)


def test_a_dict_job_error_names_the_key():
    with pytest.raises(ptp.JobSpecError) as caught:
        ptp.predict({"model": "resnet50", "precision": "fp9", "batch_size": 8, "cluster": {"gpu": "a100-sxm4-80gb"}})
    assert caught.value.field == "precision"
    assert caught.value.file == "<dict>"
    assert "unknown precision 'fp9'" in str(caught.value)


def test_a_bad_set_flag_blames_the_flag():
    job = os.path.join(JOBS_DIR, "resnet50-amp-8xa100.yaml")
    with pytest.raises(ptp.JobSpecError) as caught:
        ptp.predict(job, set=["cluster.num_gpus=zero"])
    _, stderr, _ = cli(job, "--set", "cluster.num_gpus=zero", check=False)
    assert stderr.strip() == "ptp-predict: error: " + str(caught.value)


@pytest.mark.parametrize("call", [
    lambda: ptp.predict("missing-job.yaml"),
    lambda: ptp.predict("model: [unclosed\n"),
    lambda: ptp.predict(""),
    lambda: ptp.predict(os.path.join(JOBS_DIR, "resnet50-amp-8xa100.yaml"), bundle="/nonexistent/bundle"),
    lambda: ptp.sweep(os.path.join(JOBS_DIR, "resnet50-amp-8xa100.yaml"), {"no_such_field": [1, 2]}),
    lambda: ptp.calibrate(os.path.join(JOBS_DIR, "resnet50-amp-8xa100.yaml"), measured="missing.csv"),
    lambda: ptp.predict_time(model="no-such-model", precision="bf16", gpus=1, batch_size=1),
], ids=["missing file", "bad yaml", "empty", "bad bundle", "bad sweep key", "missing csv", "unknown model"])
def test_every_bad_input_is_a_job_spec_error(call, workdir):
    with pytest.raises(ptp.JobSpecError) as caught:
        call()
    message = str(caught.value)
    assert message and "\n" not in message


def test_a_job_that_is_not_a_job_is_a_type_error():
    with pytest.raises(TypeError):
        ptp.predict(42)
