"""dle.build on a fixture of eight rows of shared/data/dle_throughput.csv."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _support import by, fixture  # noqa: E402

from dataset_build import dle  # noqa: E402

REF = "NVIDIA/DeepLearningExamples@729963dd47e7c8bd462ad10bfac7a7b0b604e6dd:"


class DleBuild(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.stats = {}
        cls.rows = dle.build(fixture("dle"), cls.stats)

    def test_counts_and_internal_keys(self):
        self.assertEqual(self.stats, {"dle_in": 8})
        self.assertEqual(len(self.rows), 8)
        for r in self.rows:
            self.assertEqual(r["source"], "dle")
            self.assertIn("_key", r)  # the run_id key, consumed by the pipeline
            for k in ("_flags", "_notes", "_group", "_bsrc"):
                self.assertNotIn(k, r)

    def test_step_time_and_tokens_for_accumulated_bert(self):
        r = by(self.rows, model="bert-large", seq_len=128)
        self.assertEqual(r["source_ref"], REF + "PaddlePaddle/LanguageModeling/BERT/README.md:924")
        self.assertEqual((r["gpu"], r["precision"]), ("a100-sxm4-80gb", "tf32"))
        self.assertEqual((r["batch_size"], r["grad_accum"], r["global_batch_size"], r["seq_len"]), (128, 64, 8192, 128))
        self.assertEqual(r["samples_per_second"], "307.0")  # as published
        self.assertEqual(r["tokens_per_second"], "39296")  # 307 * 128, derived
        self.assertEqual(r["step_time_s"], "26.684")  # 8192 / 307
        self.assertIn("step_time_s = global_batch_size/samples_per_second", r["step_time_derivation"])
        self.assertIn("tokens_per_second derived = samples_per_second*seq_len", r["step_time_derivation"])
        self.assertEqual(r["quality_flag"], "")

    def test_strong_scaling_table(self):
        one = by(self.rows, model="ncf", num_gpus=1)
        eight = by(self.rows, model="ncf", num_gpus=8)
        for r in (one, eight):
            self.assertEqual(r["global_batch_size"], 1048576)
            self.assertEqual(r["quality_flag"], "strong_scaling")
            self.assertIn("strong scaling: global batch 1048576 fixed across GPU counts", r["notes"])
        self.assertEqual(eight["batch_size"], 131072)
        self.assertEqual(eight["step_time_s"], "0.00951866")  # 1048576 / 110160000
        self.assertEqual(one["gpu"], "a100-sxm4-40gb")

    def test_unmapped_model_without_step_time(self):
        r = by(self.rows, model_as_published="FastSpeech", num_gpus=1)
        self.assertEqual((r["model"], r["gpu"], r["precision"]), ("", "v100-sxm2-16gb", "fp32"))
        self.assertEqual(r["quality_flag"], "model_unmapped;no_step_time")
        self.assertEqual((r["samples_per_second"], r["step_time_s"]), ("", ""))
        self.assertIn("throughput as published: 31674.0 mel frames/s", r["notes"])
        self.assertEqual(r["measurement"], "unknown")

    def test_source_flag_normalised_and_text_kept(self):
        r = by(self.rows, model_as_published="FastSpeech", num_gpus=8)
        self.assertEqual(r["quality_flag"], "model_unmapped;poor_scaling_as_published;no_step_time")
        self.assertIn("source flag: poor scaling as published", r["notes"])

    def test_inferred_batch_and_measurement(self):
        r = by(self.rows, model="resnet50")
        self.assertEqual(r["quality_flag"], "batch_inferred")
        self.assertEqual(r["step_time_s"], "0.150124")  # 512 / 3410.52
        self.assertEqual(r["measurement"], "unknown")  # "Total IPS ..." states neither epoch nor steady state
        self.assertIn("batch from: benchmark command quoted in README text above table", r["notes"])
        self.assertEqual(by(self.rows, model="ncf", num_gpus=1)["measurement"], "epoch_average")


if __name__ == "__main__":
    unittest.main()
