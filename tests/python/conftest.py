"""What every Python test needs: the CLI beside the package, and a way to run it."""

import json
import os
import subprocess

import pytest

SOURCE_DIR = os.path.abspath(os.environ.get("PTP_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")))
PREDICT = os.environ.get("PTP_PREDICT", os.path.join(SOURCE_DIR, "build", "apps", "ptp-predict", "ptp-predict"))
JOBS_DIR = os.path.join(SOURCE_DIR, "configs", "jobs")


def example_jobs():
    return sorted(os.path.join(JOBS_DIR, name) for name in os.listdir(JOBS_DIR) if name.endswith(".yaml"))


def cli(*args, check=True):
    """(stdout, stderr, exit code) of ptp-predict with these arguments."""
    done = subprocess.run([PREDICT, *args], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError("ptp-predict {} exited {}: {}".format(" ".join(args), done.returncode, done.stderr))
    return done.stdout, done.stderr, done.returncode


def cli_json(*args):
    return json.loads(cli(*args, "--format", "json")[0])


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path
