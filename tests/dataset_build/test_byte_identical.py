"""The refactored build reproduces the committed datasets/ byte for byte.

Runs the documented command (python3 scripts/build_datasets.py --shared <shared> --out <tmp>) from the
repository root into a temporary folder and compares every file with datasets/. The shared data is
$PTP_SHARED_DATA (CTest sets it to <repo>/../shared/data), else <repo>/../shared/data; the test is
skipped only when that folder does not exist.
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _support  # noqa: E402


def tree(base):
    out = []
    for root, _, files in os.walk(base):
        for fn in files:
            out.append(os.path.relpath(os.path.join(root, fn), base).replace(os.sep, "/"))
    return sorted(out)


def first_line_diff(a, b):
    la, lb = a.split(b"\n"), b.split(b"\n")
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return "line %d:\n  built:     %r\n  committed: %r" % (i + 1, x[:200], y[:200])
    return "length differs (%d vs %d lines)" % (len(la), len(lb))


def input_drift(built_manifest, committed_manifest):
    """Inputs whose sha256 differs between the two manifests (explains a mismatch caused by new data)."""
    def inputs(p):
        with open(p, encoding="utf-8") as f:
            return {d["path"]: d["sha256"] for d in json.load(f)["inputs"]}
    a, b = inputs(built_manifest), inputs(committed_manifest)
    return sorted(p for p in set(a) | set(b) if a.get(p) != b.get(p))


class ByteIdentical(unittest.TestCase):
    def test_build_matches_committed_datasets(self):
        shared = _support.shared_data()
        if not os.path.isdir(shared):
            self.skipTest("shared data not found at %s (set PTP_SHARED_DATA to the shared/data folder)" % shared)
        with tempfile.TemporaryDirectory(prefix="ptp_ds_") as tmp:
            out = os.path.join(tmp, "datasets")
            cmd = [sys.executable, "scripts/build_datasets.py", "--shared", shared, "--out", out, "--quiet"]
            env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
            res = subprocess.run(cmd, cwd=_support.REPO, env=env, capture_output=True, text=True)
            self.assertEqual(res.returncode, 0, "build failed:\n%s%s" % (res.stdout, res.stderr))

            built, committed = tree(out), tree(_support.DATASETS)
            self.assertEqual(built, committed, "file sets differ: only built %s, only committed %s"
                             % (sorted(set(built) - set(committed)), sorted(set(committed) - set(built))))
            # MANIFEST.json last: it differs whenever anything else does, so report the real file first
            for rel in sorted(built, key=lambda r: (r == "MANIFEST.json", r)):
                with open(os.path.join(out, rel), "rb") as f:
                    a = f.read()
                with open(os.path.join(_support.DATASETS, rel), "rb") as f:
                    b = f.read()
                if a != b:
                    drift = input_drift(os.path.join(out, "MANIFEST.json"),
                                        os.path.join(_support.DATASETS, "MANIFEST.json"))
                    hint = ("\ninputs that differ from datasets/MANIFEST.json: %s (the shared data changed "
                            "since datasets/ was generated)" % drift) if drift else ""
                    self.fail("first differing file: datasets/%s, %s%s" % (rel, first_line_diff(a, b), hint))


if __name__ == "__main__":
    unittest.main()
