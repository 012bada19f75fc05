"""pipeline on the merged fixtures: ids, ordering, duplicate handling and MANIFEST.json."""

import json
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _support import merged_fixture_tree  # noqa: E402

from dataset_build import pipeline, schema  # noqa: E402


class Pipeline(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with tempfile.TemporaryDirectory(prefix="ptp_ds_") as tmp:
            shared = merged_fixture_tree(os.path.join(tmp, "shared"))
            cls.runs, cls.colls, cls.ops, cls.stats, cls.dups = pipeline.build(shared)
            out = os.path.join(tmp, "datasets")
            pipeline.main(["--shared", shared, "--out", out, "--quiet"])
            with open(os.path.join(out, "MANIFEST.json"), encoding="utf-8") as f:
                cls.manifest = json.load(f)
            cls.files = sorted(os.path.relpath(os.path.join(r, f), out) for r, _, fs in os.walk(out) for f in fs)

    def test_ids_and_order(self):
        for r in self.runs:
            self.assertRegex(r["run_id"], r"^(dle|lambda|llm)-[0-9a-f]{10}$")
            self.assertNotIn("_key", r)
            for k in ("_system", "_bench"):
                self.assertNotIn(k, r)
            self.assertIn(r["nccl_p2p"], ("", "disabled", "enabled"))
        self.assertEqual(self.runs, sorted(self.runs, key=lambda r: (r["source"], r["run_id"])))
        for r in self.colls:
            self.assertRegex(r["point_id"], r"^(vidur|nccl)-[0-9a-f]{12}$")
            self.assertNotIn("_line", r)
        for r in self.ops:
            self.assertRegex(r["point_id"], r"^(neusight|vidur|xla|deepgemm|tilelang)-[0-9a-f]{12}$")
            self.assertNotIn("_key", r)

    def test_duplicates_and_stats(self):
        self.assertEqual(self.dups, (0, 1, 0))  # the vidur tidy file repeats one row
        self.assertEqual(dict(self.stats["runs_by_source"]), {"dle": 8, "lambda": 9, "llm": 6})
        self.assertEqual(self.stats["dedup_text"], "dropped: runs: 0, collectives: 1, ops: 0")

    def test_manifest(self):
        m = self.manifest
        self.assertEqual((m["schema_version"], m["generator"], m["command"]),
                         (schema.SCHEMA_VERSION, "scripts/build_datasets.py",
                          "python3 scripts/build_datasets.py --shared ../shared/data --out datasets/"))
        self.assertEqual(m["rows"], {"runs.csv": 23, "collectives.csv": 18, "ops.csv": 49, "memory.csv": 8,
                                      "power.csv": 13})
        self.assertEqual(m["exact_duplicates_dropped"], {"runs": 0, "collectives": 1, "ops": 0})
        self.assertIn("dle_throughput.csv", [d["path"] for d in m["inputs"]])
        outputs = [d["path"] for d in m["outputs"]]
        self.assertNotIn("MANIFEST.json", outputs)
        self.assertEqual(sorted(outputs + ["MANIFEST.json"]), self.files)
        self.assertTrue(all(re.match(r"^[0-9a-f]{64}$", d["sha256"]) for d in m["inputs"] + m["outputs"]))
        self.assertIn("ops/neusight-batched_gemm.csv", outputs)
        self.assertIn("raw/dle/dle_throughput.csv", outputs)
        self.assertIn("memory.csv", outputs)
        self.assertIn("raw/shared/memory/measured_memory.csv", outputs)
        self.assertIn("sources/memory.md", outputs)
        self.assertIn("power.csv", outputs)
        self.assertIn("raw/shared/power/README.md", outputs)
        self.assertIn("ops/xla-batched_gemm.csv", outputs)
        self.assertIn("raw/shared/kernels/xla_matmul_perf_table.csv", outputs)
        self.assertNotIn("raw/shared/kernels/mamf_ml_engineering.csv", outputs)


if __name__ == "__main__":
    unittest.main()
