"""nccl_tests.build on a fixture of seven lines of shared/data/nccl_allreduce.csv."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _support import by, fixture  # noqa: E402

from dataset_build import nccl_tests  # noqa: E402


class NcclBuild(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.stats = {}
        cls.rows = nccl_tests.build(fixture("nccl-tests"), cls.stats)

    def test_one_row_per_placement(self):
        self.assertEqual(self.stats, {"nccl_in": 7})
        # 5 lines with out-of-place and in-place times, 2 H200 lines with out-of-place only
        self.assertEqual(len(self.rows), 12)
        self.assertEqual(sorted(r["in_place"] for r in self.rows), ["0"] * 7 + ["1"] * 5)

    def test_single_node_a100(self):
        r = by(self.rows, _line=2, in_place=0)
        self.assertEqual((r["gpu"], r["fabric_intra"], r["fabric_inter"]), ("a100-sxm4-40gb", "nvlink3", ""))
        self.assertEqual((r["ranks"], r["nodes"], r["dtype"]), ("8", "1", "fp32"))
        self.assertEqual(r["time_s"], "0.080922")  # 80922 us
        self.assertTrue(r["source_ref"].startswith("oracle-japan/ocitutorials@40114268"))
        self.assertTrue(r["notes"].startswith("nccl_allreduce.csv line 2; "))

    def test_inter_node_fabrics(self):
        self.assertEqual(by(self.rows, _line=3, in_place=1)["fabric_inter"], "roce-100x16")
        self.assertEqual(by(self.rows, _line=4, in_place=1)["fabric_inter"], "roce-200x16")
        r = by(self.rows, _line=5, in_place=0)
        self.assertEqual(r["fabric_inter"], "gcp-a3mega")
        self.assertIn("A3 Mega inferred from the repository name", r["notes"])

    def test_issue_report_without_commit(self):
        r = by(self.rows, _line=6, in_place=1)
        self.assertEqual(r["source_ref"], "NVIDIA/nccl:https://github.com/NVIDIA/nccl/issues/1161 (issue description)")
        self.assertEqual((r["gpu"], r["fabric_intra"]), ("h100-pcie-80gb", "nvlink-bridge"))

    def test_h200_nvls_from_2mib_and_unstated_dtype(self):
        small, big = by(self.rows, _line=7), by(self.rows, _line=8)
        for r in (small, big):
            self.assertEqual((r["gpu"], r["dtype"]), ("h200-sxm-141gb", ""))
        self.assertEqual((small["size_bytes"], small["algorithm"]), ("32768", ""))
        self.assertEqual((big["size_bytes"], big["algorithm"]), ("2097152", "nvls"))
        self.assertEqual(big["time_s"], "5.688e-05")


if __name__ == "__main__":
    unittest.main()
