"""llm.build on a fixture of six rows of shared/data/llm_bf16_fp8_throughput.csv."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _support import by, fixture  # noqa: E402

from dataset_build import llm  # noqa: E402


class LlmBuild(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.stats = {}
        cls.rows = llm.build(fixture("llm"), cls.stats)

    def test_counts(self):
        self.assertEqual(self.stats, {"llm_in": 6})
        self.assertEqual(len(self.rows), 6)
        self.assertTrue(all(r["batch_unit"] == "sequences" for r in self.rows))

    def test_total_tokens_published(self):
        r = by(self.rows, model="mpt-70b")
        self.assertEqual(r["source_ref"], "mosaicml/llm-foundry@8c8dd48f72168c5d51e2f7b151595892a8fba43d:"
                                          "scripts/train/benchmarking/README.md:75")
        self.assertEqual((r["gpu"], r["precision"], r["num_gpus"]), ("h100-sxm5-80gb", "amp_bf16", 512))
        self.assertEqual(r["tokens_per_second"], "515636")
        self.assertEqual(r["samples_per_second"], "251.7754")  # 515636 / 2048
        self.assertEqual(r["step_time_s"], "16.2685")
        self.assertEqual((r["sharding"], r["activation_checkpointing"]), ("fsdp", "full"))
        self.assertEqual(r["quality_flag"], "")

    def test_per_gpu_tokens_and_assumed_gpu(self):
        r = by(self.rows, model="megatron-gpt-1.7b-2024family")
        self.assertEqual(r["gpu"], "h100-sxm5-80gb")
        self.assertEqual(r["quality_flag"], "transcribed_from_image;precision_inferred;tokens_derived;gpu_inferred")
        self.assertEqual(r["tokens_per_second"], "1740456")  # 36259.5 per GPU * 48
        self.assertEqual(r["sharding"], "zero1")
        self.assertTrue(r["step_time_derivation"].startswith("step_time_s from source (derived from derived tokens/s)"))

    def test_model_rename_and_grad_accum_derivation(self):
        self.assertEqual(by(self.rows, model_as_published="GPT-2 124M")["model"], "gpt2")
        r = by(self.rows, model="gpt3-175b")
        self.assertEqual((r["gpu"], r["grad_accum"]), ("", 192))  # 1536 / (1 * 8)
        self.assertEqual(r["quality_flag"], "approximate;precision_from_example_script;gpu_unmapped")
        self.assertIn("grad_accum derived = global_batch_size/(batch_size*dp)", r["notes"])

    def test_unmapped_moe_and_power_limited(self):
        r = by(self.rows, model_as_published="DeepSeekV3")
        self.assertEqual((r["model"], r["gpu"], r["precision"]), ("", "gb300", "fp8"))
        self.assertEqual(r["quality_flag"], "moe_or_hybrid;model_unmapped")
        self.assertIn("source canonical id: deepseek-v3 (moe)", r["notes"])
        r = by(self.rows, gpu_as_published="B200 (power limited)")
        self.assertEqual(r["gpu"], "b200-sxm-180gb")
        self.assertEqual(r["quality_flag"], "model_unnamed;unit_ambiguous;model_unmapped;power_limited;no_step_time")
        self.assertEqual((r["sharding"], r["activation_checkpointing"]), ("fsdp", "selective"))


if __name__ == "__main__":
    unittest.main()
