"""lambda_labs.build on a fixture of nine rows of shared/data/lambda_throughput.csv."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _support import by, fixture  # noqa: E402

from dataset_build import lambda_labs  # noqa: E402


class LambdaBuild(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.stats = {}
        cls.rows = lambda_labs.build(fixture("lambda"), cls.stats)

    def test_counts(self):
        self.assertEqual(self.stats, {"lambda_in": 9})
        self.assertEqual(len(self.rows), 9)
        self.assertTrue(all(r["source"] == "lambda" and r["measurement"] == "unknown" for r in self.rows))

    def test_fp32_on_ampere_is_tf32(self):
        r = by(self.rows, model="ssd300", gpu="a100-sxm4-80gb")
        self.assertEqual(r["precision"], "tf32")
        self.assertIn("published FP32; NGC container runs TF32 on sm_80+", r["notes"])
        self.assertEqual(r["source_ref"], "lambdal/deeplearning-benchmark@aa5addb6a53675a649a80036dad548f1c27cbcc4:"
                                          "pytorch/pytorch-train-throughput-fp32.csv")
        self.assertEqual(r["step_time_s"], "0.842105")  # 256 / 304

    def test_fp32_on_volta_and_v100_32gb_choice(self):
        r = by(self.rows, model="ssd300", gpu_as_published="V100 32GB")
        self.assertEqual((r["gpu"], r["precision"]), ("v100-sxm2-32gb", "fp32"))
        self.assertIn(lambda_labs.LAMBDA_V100_32_NOTE, r["notes"])
        self.assertEqual((r["num_gpus"], r["gpus_per_node"], r["batch_size"], r["global_batch_size"]), (2, 2, 108, 216))
        self.assertIn("n_runs 1, min", r["notes"])

    def test_scientific_notation_batch_recomputed(self):
        r = by(self.rows, model="ncf")
        self.assertEqual((r["batch_size"], r["global_batch_size"]), (10000000, 10000000))
        self.assertIn("per-GPU cell printed as 1e+07", r["notes"])
        self.assertEqual(r["batch_unit"], "samples")

    def test_tokens_unit_has_no_step_time(self):
        r = by(self.rows, model="transformer-xl-base")
        self.assertEqual((r["tokens_per_second"], r["samples_per_second"], r["step_time_s"]), ("18223.0", "", ""))
        self.assertEqual(r["batch_unit"], "sequences")
        self.assertEqual(r["quality_flag"], "seq_len_unknown;no_step_time")

    def test_master_weights_fp16_and_source_flag(self):
        self.assertEqual(by(self.rows, model="resnet50")["precision"], "fp16")
        r = by(self.rows, model="tacotron2")
        self.assertEqual(r["quality_flag"], "suspect_amp_fp32_ratio;no_step_time")
        self.assertEqual(r["gpu"], "rtx-6000-ada")


if __name__ == "__main__":
    unittest.main()
