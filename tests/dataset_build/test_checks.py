"""checks.check_outputs / check_catalog: clean fixture rows pass, each kind of bad row is caught."""

import copy
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _support import fixture, merged_fixture_tree  # noqa: E402

from dataset_build import checks, pipeline  # noqa: E402


class Checks(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with tempfile.TemporaryDirectory(prefix="ptp_ds_") as tmp:
            cls.runs, cls.colls, cls.ops, _, _ = pipeline.build(merged_fixture_tree(tmp))

    def tables(self):
        return copy.deepcopy(self.runs), copy.deepcopy(self.colls), copy.deepcopy(self.ops)

    def test_fixture_tables_pass(self):
        self.assertTrue(os.path.isdir(fixture("dle")))
        self.assertEqual(checks.check_outputs(*self.tables()), [])
        self.assertEqual(checks.check_catalog(*self.tables()), [])

    def test_negative_step_time_caught(self):
        runs, colls, ops = self.tables()
        bad = next(r for r in runs if r["step_time_s"])
        bad["step_time_s"] = "-1"
        problems = checks.check_outputs(runs, colls, ops)
        self.assertIn("runs %s: step_time_s=-1" % bad["run_id"], problems)

    def test_step_time_inconsistent_with_throughput_caught(self):
        runs, colls, ops = self.tables()
        bad = next(r for r in runs if r["source"] == "dle" and r["step_time_s"] and not r["quality_flag"])
        bad["step_time_s"] = str(float(bad["step_time_s"]) * 2)
        problems = checks.check_outputs(runs, colls, ops)
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("runs %s: step*sps/gbs=2.0000" % bad["run_id"]), problems)

    def test_unknown_ids_caught(self):
        runs, colls, ops = self.tables()
        runs[0]["precision"] = "fp64"
        runs[1]["model"] = "not-a-zoo-model"
        runs[2]["measurement"] = "guess"
        problems = checks.check_outputs(runs, colls, ops)
        self.assertEqual(problems, ["runs %s: precision fp64" % runs[0]["run_id"],
                                    "runs %s: model id not-a-zoo-model" % runs[1]["run_id"],
                                    "runs %s: measurement" % runs[2]["run_id"]])

    def test_median_outside_min_max_and_duplicate_ids_caught(self):
        runs, colls, ops = self.tables()
        bad = next(r for r in ops if r["time_s_max"])
        bad["time_s"] = str(float(bad["time_s_max"]) * 10)
        colls[1]["point_id"] = colls[0]["point_id"]
        problems = checks.check_outputs(runs, colls, ops)
        self.assertIn("ops %s: median outside [min,max]" % bad["point_id"], problems)
        self.assertIn("duplicate ids in point_id", problems)

    def test_catalog_unknown_gpu_and_fabric_caught(self):
        runs, colls, ops = self.tables()
        with tempfile.TemporaryDirectory(prefix="ptp_cfg_") as root:
            for d, ids in (("gpus", ("a100-sxm4-80gb",)), ("fabrics", ("roce-100x16",))):
                os.makedirs(os.path.join(root, "configs", d))
                for i in ids:
                    open(os.path.join(root, "configs", d, i + ".yaml"), "w").close()
            problems = checks.check_catalog(runs, colls, ops, root=root)
        self.assertIn("gpu id h200-sxm-141gb not in configs/gpus", problems)
        self.assertIn("fabric id roce-200x16 not in configs/fabrics", problems)
        self.assertNotIn("gpu id a100-sxm4-80gb not in configs/gpus", problems)


if __name__ == "__main__":
    unittest.main()
