"""power.build on a fixture of thirteen rows of shared/data/power/measured_power.csv (one per source)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _support import REPO, fixture  # noqa: E402

from dataset_build import power  # noqa: E402


class PowerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.stats = {}
        cls.rows = power.build(fixture("power"), cls.stats)

    def test_columns_and_checks(self):
        self.assertEqual(self.stats, {"power_in": 13})
        for r in self.rows:
            self.assertEqual(sorted(r), sorted(power.POWER_COLUMNS))
        self.assertEqual(power.check(self.rows, REPO), [])

    def test_zeus_row_is_copied_and_mapped(self):
        r = self.rows[0]
        self.assertEqual((r["origin"], r["gpu"], r["precision"], r["scope_kind"]), ("zeus", "v100-pcie-16gb", "fp32", "board"))
        self.assertEqual((r["avg_power_w_per_gpu"], r["power_limit_w"], r["energy_j"]), ("86.86", "100", "979.5"))
        self.assertEqual(r["shared_ref"], "power/measured_power.csv:2")
        self.assertIn("memory size not stated", r["mapping_notes"])

    def test_scopes_and_unmapped_parts(self):
        by_origin = {r["origin"]: r for r in self.rows}
        self.assertEqual(by_origin["patterson"]["scope_kind"], "system_per_accelerator")
        self.assertEqual(by_origin["latif"]["scope_kind"], "node")
        self.assertEqual(by_origin["llama_card"]["scope_kind"], "tdp")
        self.assertEqual(by_origin["llama_card"]["quality_flag"], "tdp_based_estimate")
        # Dodge names a V100 without its form factor: no catalog id, so no TDP is assumed
        self.assertEqual(by_origin["dodge"]["gpu"], "")
        self.assertEqual(by_origin["flopmetrics"]["model"], "llama3.2-1b")


if __name__ == "__main__":
    unittest.main()
