"""neusight.build on a fixture of nine rows of the five NeuSight test files."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _support import by, fixture  # noqa: E402

from dataset_build import neusight  # noqa: E402


class NeusightBuild(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.stats = {}
        cls.rows = neusight.build(fixture("neusight"), cls.stats)

    def test_counts_and_common_fields(self):
        self.assertEqual(self.stats, {"neusight_in": 9})
        self.assertEqual(len(self.rows), 9)
        for r in self.rows:
            self.assertEqual((r["dtype_in"], r["dtype_compute"], r["dtype_out"]), ("fp32",) * 3)
            self.assertNotIn("<", r["kernel_name"])  # template arguments dropped
            self.assertEqual(r["_key"], r["source_ref"] + "|" + r["op_name"])

    def test_batched_gemm_split_k(self):
        r = by(self.rows, source_ref="test/bmm.csv:3")
        self.assertEqual((r["op_class"], r["m"], r["n"], r["k"], r["batch"]), ("batched_gemm", 196, 196, 64, 65536))
        self.assertEqual(r["flops"], 2 * 196 * 196 * 64 * 65536)
        self.assertEqual(r["bytes"], 4 * 65536 * (196 * 64 + 64 * 196 + 196 * 196))
        self.assertEqual((r["gpu"], r["notes"]), ("l4", "3 kernels launched"))

    def test_linear_and_h100_mapping(self):
        r = by(self.rows, source_ref="test/linear.csv:3")
        self.assertEqual((r["op_class"], r["m"], r["n"], r["k"], r["batch"]), ("gemm", 1024, 2560, 2560, 1))
        self.assertEqual(r["gpu"], "h100-sxm5-80gb")  # "NVIDIA H100 80GB HBM3"
        self.assertEqual(r["time_s"], "0.000383551995")  # Latency ms / 1000, 10 significant digits

    def test_elementwise_tensor_counts(self):
        add = by(self.rows, op_name="add")
        relu = by(self.rows, op_name="relu")
        nel = 32768 * 1600
        self.assertEqual((add["flops"], add["bytes"]), (nel, 4 * 3 * nel))
        self.assertEqual((relu["flops"], relu["bytes"]), (nel, 4 * 2 * nel))
        self.assertEqual(add["gpu"], "v100-pcie-32gb")
        self.assertEqual((add["k"], add["batch"], add["shape"]), ("", "", "B=32768;H=1600"))

    def test_layernorm_and_softmax_formulas(self):
        nel, h = 32768 * 1600, 1600
        ln = by(self.rows, op_class="layernorm")
        self.assertEqual((ln["flops"], ln["bytes"]), (8 * nel, 4 * (2 * nel + 2 * h)))
        sm = by(self.rows, op_class="softmax")
        self.assertEqual((sm["flops"], sm["bytes"]), (5 * nel, 4 * 2 * nel))


if __name__ == "__main__":
    unittest.main()
