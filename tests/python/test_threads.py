"""One loaded predictor serves every thread, and the GIL is free while libpredict works."""

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import ptp
from ptp import _core, _session

from conftest import JOBS_DIR, example_jobs


def test_four_threads_share_one_predictor_and_get_the_serial_answers():
    jobs = example_jobs()
    serial = {job: ptp.predict(job).to_dict() for job in jobs}
    sessions_before = dict(_session._sessions)
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(lambda job: (job, ptp.predict(job).to_dict()), jobs * 4))
    assert len(answers) == 4 * len(jobs)
    for job, answer in answers:
        assert answer == serial[job]
    assert _session._sessions == sessions_before  # no thread loaded a predictor of its own


def test_the_gil_is_released_while_predicting():
    # A Python thread counts while the main thread is inside libpredict for a 600-point sweep. Were
    # the GIL held, the counter could not move between the call's entry and its return.
    job = os.path.join(JOBS_DIR, "gpt2-xl-bf16-32xh100.yaml")
    session = _session.session()
    request = _core.make_request(
        job_files=[job], job_texts=[], sets=[], unsets=[],
        sweeps=["batch_size=" + ",".join(str(b) for b in range(1, 31)),
                "cluster.num_gpus=" + ",".join(str(8 * n) for n in range(1, 21))],
        format="jsonl", calibrate="", calibrate_logs=[], log_format="", search=False, objective="time", top=10,
        space="", threads=1)
    count = [0]
    stop = threading.Event()

    def counter():
        while not stop.is_set():
            count[0] += 1

    thread = threading.Thread(target=counter)
    thread.start()
    try:
        before = count[0]
        out, _, _ = session.run(request)
        during = count[0] - before
    finally:
        stop.set()
        thread.join()
    assert len(out.splitlines()) == 600
    assert during > 1000, "the counting thread advanced only {} times during the call".format(during)
