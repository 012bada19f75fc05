"""vidur_collectives.build and vidur_ops.build on a fixture of vidur rows.

The fixture's network files hold only the records matching its tidy rows, so a cited line number is a
line of the fixture file.
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _support import by, fixture  # noqa: E402

from dataset_build import vidur_collectives, vidur_ops  # noqa: E402

NET = "microsoft/vidur@7d47513363ec447a741ac5e47241580b47724fbf:data/profiling/network/"


class VidurCollectives(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.stats = {}
        cls.rows = vidur_collectives.build(fixture("vidur"), cls.stats)

    def test_counts_duplicates_and_power_of_two_rule(self):
        # 8 tidy rows: one exact duplicate skipped, one 10240-byte size dropped by the power-of-two rule
        self.assertEqual(self.stats, {"vidur_coll_in": 8, "vidur_unmatched": 0, "vidur_tidy_dups": 1})
        self.assertEqual(len(self.rows), 6)
        self.assertNotIn("10240", [r["size_bytes"] for r in self.rows])

    def test_multi_node_dgx_row(self):
        r = by(self.rows, size_bytes=2048)
        self.assertEqual(r["source_ref"], NET + "a100_dgx/all_reduce.csv:2")
        self.assertEqual((r["ranks"], r["nodes"], r["ranks_per_node"]), (2, 2, 1))
        self.assertEqual((r["gpu"], r["fabric_intra"], r["fabric_inter"]), ("a100-sxm4-80gb", "nvlink3", "unknown"))
        self.assertEqual((r["dtype"], r["in_place"], r["time_s"]), ("fp16", "1", "4.3e-05"))
        self.assertIn("inter-node fabric not documented", r["notes"])

    def test_pairwise_topologies(self):
        r = by(self.rows, collective="all_reduce", size_bytes=1048576)
        self.assertEqual((r["gpu"], r["ranks"]), ("a100-pcie-80gb", 4))
        self.assertIn("spans NVLink pairs (PCIe between pairs)", r["notes"])
        h100 = [r for r in self.rows if "h100_pairwise_nvlink" in r["source_ref"]]
        self.assertEqual(len(h100), 2)
        for r in h100:
            self.assertEqual((r["gpu"], r["fabric_intra"], r["in_place"]), ("", "nvlink4", ""))
            self.assertIn("byte-identical to a100_pairwise_nvlink/send_recv.csv", r["notes"])
        self.assertEqual(sorted(r["source_ref"][-1] for r in h100), ["2", "3"])


class VidurOps(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.stats = {}
        cls.rows = vidur_ops.build(fixture("vidur"), cls.stats)

    def test_counts_and_token_rule(self):
        self.assertEqual(self.stats, {"vidur_files": 2, "vidur_lines": 5})
        # num_tokens 4064 rows dropped; Llama-2: 2 lines x 10 ops, phi-2: 1 line x 9 ops (no post-attn norm)
        self.assertEqual(len(self.rows), 29)
        self.assertNotIn("num_tokens=4064", " ".join(r["shape"] for r in self.rows))
        for r in self.rows:
            self.assertEqual((r["dtype_in"], r["gpu"], r["batch"]), ("fp16", "a100-sxm4-80gb", 1))

    def test_tensor_parallel_gemm_shapes(self):
        ref = "a100/meta-llama/Llama-2-7b-hf/mlp.csv:4"  # num_tokens 1024, tp 2
        qkv = by(self.rows, source_ref=ref, op_name="attn_pre_proj")
        self.assertEqual((qkv["m"], qkv["k"], qkv["n"]), (1024, 4096, (32 + 2 * 32) * 128 // 2))
        self.assertEqual(qkv["flops"], 2 * 1024 * 4096 * 6144)
        up = by(self.rows, source_ref=ref, op_name="mlp_up_proj")
        self.assertEqual(up["n"], 2 * 11008 // 2)  # gated
        self.assertEqual(qkv["shape"], "model=meta-llama/Llama-2-7b-hf;num_tokens=1024;tp=2")

    def test_norm_types_and_times(self):
        t, h = 4096, 4096
        rms = by(self.rows, source_ref="a100/meta-llama/Llama-2-7b-hf/mlp.csv:2", op_name="input_layernorm")
        self.assertEqual((rms["flops"], rms["bytes"]), (4 * t * h, 2 * (2 * t * h + h)))
        self.assertEqual((rms["time_s"], rms["time_s_min"], rms["time_s_max"]), ("0.000105", "9.5e-05", "0.000105"))
        h = 2560
        ln = by(self.rows, source_ref="a100/microsoft/phi-2/mlp.csv:2", op_name="input_layernorm")
        self.assertEqual(ln["flops"], 8 * t * h)  # phi-2 LayerNorm
        add = by(self.rows, source_ref="a100/microsoft/phi-2/mlp.csv:2", op_name="add")
        self.assertEqual((add["flops"], add["bytes"]), (2 * t * h, 2 * 4 * t * h))


if __name__ == "__main__":
    unittest.main()
