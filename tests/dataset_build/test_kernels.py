"""kernels.build on a fixture of rows of shared/data/kernels/*.csv (XLA, DeepGEMM, tilelang, MAMF)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _support import by, fixture  # noqa: E402

from dataset_build import kernels  # noqa: E402

XLA_REF = "ROCm/xla@3b8c752b51ea351f908a18175fda20fe203f4a65:xla/service/gpu/model/default_matmul_perf_table.txtpb"


class KernelsBuild(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.stats = {}
        cls.rows = kernels.build(fixture("kernels"), cls.stats)

    def test_counts_latest_tables_only_and_mamf_not_written(self):
        self.assertEqual(self.stats, {"kernels_xla_in": 6, "kernels_deepgemm_in": 4, "kernels_deepgemm_latest": 3,
                                      "kernels_tilelang_in": 3, "kernels_tilelang_latest": 2, "kernels_mamf_in": 2})
        self.assertEqual(len(self.rows), 11)  # 6 xla + 3 deepgemm (is_latest_table=1) + 2 tilelang
        self.assertEqual({r["source"] for r in self.rows}, {"xla", "deepgemm", "tilelang"})

    def test_xla_h100_bf16_and_tf32(self):
        bf16 = by(self.rows, source="xla", gpu="h100-sxm5-80gb", dtype_compute="bf16")
        self.assertEqual(bf16["source_ref"], XLA_REF)
        self.assertEqual((bf16["op_class"], bf16["m"], bf16["n"], bf16["k"], bf16["batch"]), ("gemm", 4096, 4096, 4096, 1))
        self.assertEqual(bf16["time_s"], "0.00017616")  # time_ns 176160
        self.assertEqual((bf16["flops"], bf16["bytes"]), (2 * 4096 ** 3, 3 * 4096 * 4096 * 2))
        self.assertEqual(bf16["status"], "ok")
        self.assertIn("SKU", bf16["notes"])  # sm_90 -> SXM5 80GB choice explained
        tf32 = by(self.rows, source="xla", gpu="h100-sxm5-80gb", dtype_compute="tf32")
        self.assertEqual((tf32["dtype_in"], tf32["dtype_out"], tf32["time_s"]), ("fp32", "fp32", "0.000340913"))

    def test_xla_suspect_fp8_excluded(self):
        h100 = by(self.rows, source="xla", gpu="h100-sxm5-80gb", dtype_compute="fp8")
        self.assertEqual((h100["status"], h100["reason"]), ("skipped", "sm90_fp8_suspect_see_readme;fp8_faster_than_2x_bf16"))
        self.assertEqual((h100["dtype_in"], h100["dtype_out"]), ("fp8_e4m3", "bf16"))
        fast = by(self.rows, source="xla", gpu="b200-sxm-180gb", status="skipped")
        self.assertEqual(fast["reason"], "fp8_faster_than_2x_bf16")
        self.assertEqual((fast["op_class"], fast["batch"]), ("batched_gemm", 2))
        ok = by(self.rows, source="xla", gpu="b200-sxm-180gb", dtype_compute="fp8", status="ok")
        self.assertEqual(ok["dtype_in"], "fp8")  # e4m3 x e5m2
        self.assertIn("operands A fp8_e4m3, B fp8_e5m2", ok["notes"])
        self.assertEqual(ok["bytes"], 2 * 4096 * 4096 * 1 + 4096 * 4096 * 2)

    def test_deepgemm_block_scaled_fp8_on_h800(self):
        dense = by(self.rows, source="deepgemm", op_name="deepgemm_gemm")
        self.assertEqual((dense["gpu"], dense["dtype_compute"], dense["m"], dense["n"], dense["k"]),
                         ("h800-sxm5-80gb", "fp8", 4096, 7168, 16384))
        self.assertEqual(dense["time_s"], "0.0006329425")  # 2*4096*7168*16384 / 1520 TFLOPS
        self.assertIn("block-scaled FP8", dense["notes"])
        self.assertTrue(dense["source_ref"].startswith("deepseek-ai/DeepGEMM@a9967bc27cdcead54e8d11e1736644eb51d49b33"))
        grouped = by(self.rows, op_name="deepgemm_grouped_gemm_contiguous")
        self.assertEqual((grouped["op_class"], grouped["m"], grouped["batch"]), ("batched_gemm", 8192, 4))
        self.assertEqual(grouped["flops"], 2 * 4 * 8192 * 4096 * 7168)
        self.assertEqual(by(self.rows, op_name="deepgemm_grouped_gemm_masked")["op_class"], "gemm")  # 1 group

    def test_tilelang_latency_in_ms(self):
        fp8 = by(self.rows, source="tilelang", dtype_compute="fp8")
        self.assertEqual((fp8["time_s"], fp8["dtype_out"], fp8["gpu"]), ("0.000374816", "fp8_e4m3", "h800-sxm5-80gb"))
        self.assertEqual(fp8["bytes"], 8192 * 4096 + 4096 * 8192 + 8192 * 8192)  # fp8 in and out: 1 byte each
        fp16 = by(self.rows, source="tilelang", dtype_compute="fp16")
        self.assertEqual(fp16["time_s"], "0.000746752")


if __name__ == "__main__":
    unittest.main()
