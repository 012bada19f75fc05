"""run_facts.describe_runs on the dle and lambda fixtures: nccl_p2p, Lambda BERT SQuAD seq_len, computed_seq_len."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _support import by, fixture  # noqa: E402

from dataset_build import dle, lambda_labs, run_facts  # noqa: E402


class RunFacts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.lam = run_facts.describe_runs(lambda_labs.build(fixture("lambda")))
        cls.dle = run_facts.describe_runs(dle.build(fixture("dle")))

    def test_helper_keys_removed_and_columns_present(self):
        for r in self.lam + self.dle:
            self.assertNotIn("_system", r)
            self.assertNotIn("_bench", r)
            self.assertIn(r["nccl_p2p"], ("", "disabled", "enabled"))
            self.assertIn("computed_seq_len", r)

    def test_lambda_multi_gpu_p2p_disabled_in_script_window(self):
        r = by(self.lam, model="bert-large")  # 2x RTX 4090, v1 (logs of 2022-10-16..20)
        self.assertEqual((r["num_gpus"], r["nccl_p2p"]), (2, "disabled"))
        self.assertIn("export NCCL_P2P_DISABLE=1", r["notes"])
        self.assertIn(run_facts.P2P_ADDED, r["notes"])

    def test_lambda_p2p_outside_window_and_single_gpu(self):
        self.assertEqual(by(self.lam, model="gnmt")["nccl_p2p"], "enabled")  # 8x RTX 6000 Ada, 2023-03-23
        v0 = by(self.lam, model="ssd300", gpu_as_published="V100 32GB")  # 2 GPUs, v0 (2020-21)
        self.assertEqual(v0["nccl_p2p"], "enabled")
        self.assertIn("first appears", v0["notes"])
        for r in self.lam:
            if r["num_gpus"] == 1:
                self.assertEqual(r["nccl_p2p"], "")

    def test_lambda_bert_squad_seq_len_384(self):
        r = by(self.lam, model="bert-large")
        self.assertEqual(r["seq_len"], 384)
        self.assertNotIn("seq_len_unknown", r["quality_flag"])
        self.assertIn("seq_len 384 from run_squad.sh max_seq_length, per dataset-facts.md §2", r["notes"])
        self.assertEqual(r["tokens_per_second"], "%g" % (float(r["samples_per_second"]) * 384))
        self.assertTrue(r["step_time_s"])
        self.assertIn("tokens_per_second derived = samples_per_second*seq_len", r["step_time_derivation"])
        self.assertEqual(by(self.lam, model="gnmt")["seq_len"], "")  # no fact for GNMT

    def test_dle_bert_phase2_computed_seq_len(self):
        pt = by(self.dle, model="bert-large", framework="PyTorch", seq_len=512)
        self.assertEqual(pt["computed_seq_len"], 296)
        self.assertIn("512/1.73 = 296", pt["notes"])
        self.assertIn("dataset-facts.md §3", pt["notes"])
        self.assertEqual(pt["nccl_p2p"], "")
        tf2 = by(self.dle, model="bert-large", framework="TensorFlow2", seq_len=512)
        self.assertEqual(tf2["computed_seq_len"], "")
        self.assertIn("padded to 512", tf2["notes"])
        phase1 = by(self.dle, model="bert-large", seq_len=128)
        self.assertEqual(phase1["computed_seq_len"], "")



class AutoModelExpertParallel(unittest.TestCase):
    """Synthetic rows (not measurements): only the fields automodel_ep reads and writes."""

    def row(self, label, ep=""):
        return {"model_as_published": label, "ep": ep, "notes": ""}

    def test_ep_from_the_linked_benchmark_config(self):
        r = self.row("GPT-OSS 120B")
        run_facts.automodel_ep(r)
        self.assertEqual(r["ep"], 64)
        self.assertIn("gptoss_120b_te_deepep.yaml", r["notes"])
        self.assertIn(run_facts.AUTOMODEL, r["notes"])
        r = self.row("GPT-OSS 20B")
        run_facts.automodel_ep(r)
        self.assertEqual(r["ep"], 8)

    def test_published_ep_and_other_models_are_left_alone(self):
        r = self.row("GPT-OSS 120B", ep="8")
        run_facts.automodel_ep(r)
        self.assertEqual((r["ep"], r["notes"]), ("8", ""))
        r = self.row("Qwen3 MoE 30B")
        run_facts.automodel_ep(r)
        self.assertEqual((r["ep"], r["notes"]), ("", ""))


class AutoModelRecompute(unittest.TestCase):
    """Synthetic rows (not measurements): only the fields automodel_recompute reads and writes."""

    def row(self, label, task, gpus, ac=""):
        return {"model_as_published": label, "task": task, "num_gpus": gpus, "activation_checkpointing": ac,
                "notes": ""}

    def test_recompute_from_the_linked_benchmark_config(self):
        r = self.row("Llama 3 70B", "finetune_lora", 16)
        run_facts.automodel_recompute(r)
        self.assertEqual(r["activation_checkpointing"], "full")
        self.assertIn("custom_llama3_3_70b_instruct_peft_benchmark_2nodes.yaml", r["notes"])
        self.assertIn(run_facts.AUTOMODEL, r["notes"])
        r = self.row("GPT-OSS 120B", "pretrain", "64")
        run_facts.automodel_recompute(r)
        self.assertEqual(r["activation_checkpointing"], "none")

    def test_unset_configs_and_published_values_are_left_alone(self):
        r = self.row("Llama 3 8B", "finetune_lora", "1")
        run_facts.automodel_recompute(r)
        self.assertEqual((r["activation_checkpointing"], r["notes"]), ("", ""))
        r = self.row("Qwen3 MoE 30B", "pretrain", "8", ac="selective")
        run_facts.automodel_recompute(r)
        self.assertEqual((r["activation_checkpointing"], r["notes"]), ("selective", ""))


if __name__ == "__main__":
    unittest.main()
