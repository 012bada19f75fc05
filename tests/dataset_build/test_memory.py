"""memory.build on a fixture of eight rows of shared/data/memory/measured_memory.csv."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _support import REPO, by, fixture  # noqa: E402

from dataset_build import memory  # noqa: E402


class MemoryBuild(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.stats = {}
        cls.rows = memory.build(fixture("memory"), cls.stats)

    def test_counts_and_columns(self):
        self.assertEqual(self.stats, {"memory_in": 8})
        self.assertEqual([r["row_id"] for r in self.rows], ["1", "27", "61", "111", "170", "238", "322", "339"])
        for r in self.rows:
            self.assertEqual(sorted(r), sorted(memory.MEMORY_COLUMNS))
        self.assertEqual(memory.check(self.rows, REPO), [])

    def test_torchtitan_row(self):
        r = by(self.rows, row_id=1)
        self.assertEqual((r["origin"], r["model"], r["gpu"], r["precision"]), ("torchtitan", "llama3-8b",
                                                                              "h100-sxm5-96gb", "bf16"))
        self.assertEqual((r["sharding"], r["activation_checkpointing"], r["finetune"]), ("fsdp", "selective", "full"))
        self.assertEqual((r["memory_kind"], r["measured_peak_gib"], r["measured_peak_gb"]),
                         ("reserved", "82.4", "88.476"))
        self.assertEqual(r["shared_ref"], "memory/measured_memory.csv:2")
        self.assertEqual(r["source_ref"], "pytorch/torchtitan@b5bcd76c66d0acb1a08b176d9639425bc55e0b2a:"
                                          "benchmarks/llama3_h100_202412_torchtitan.md:27")

    def test_qlora_and_proxy_gpu(self):
        r = by(self.rows, row_id=61)
        self.assertEqual((r["finetune"], r["model"], r["gpu"]), ("qlora", "llama2-7b", "rtx-4090"))
        r = by(self.rows, row_id=170)  # litgpt config hub, A10G -> a10, OOM row without a value
        self.assertEqual((r["gpu"], r["outcome"], r["measured_peak_gib"]), ("a10", "oom", ""))
        self.assertIn("A10G", r["mapping_notes"])
        self.assertEqual(r["memory_kind"], "allocated")

    def test_peft_and_unmapped(self):
        r = by(self.rows, row_id=238)
        self.assertEqual((r["origin"], r["model"], r["gpu"], r["finetune"], r["memory_kind"]),
                         ("peft", "llama3.2-3b", "l40s", "lora", "reserved_minus_init"))
        r = by(self.rows, row_id=322)
        self.assertEqual((r["model"], r["memory_kind"], r["precision"]), ("bert-large", "nvidia_smi", "fp32"))
        r = by(self.rows, row_id=339)  # ms-swift: GPU not stated
        self.assertEqual((r["origin"], r["gpu"], r["memory_kind"]), ("ms-swift", "", "not_stated"))

    def test_vocabulary(self):
        self.assertEqual(memory.optimizer("PagedAdamW8bit (bitsandbytes), optimizer_in_bwd"), "")
        self.assertEqual(memory.optimizer("AdamW {\"lr\": 0.0001}"), "adamw")
        self.assertEqual(memory.optimizer("adam (AdamW)"), "adamw")
        self.assertEqual(memory.finetune_method("full_ft (LISA, 2 active layers)", ""), "")
        self.assertEqual(memory.finetune_method("pretrain", ""), "full")
        self.assertEqual(memory.finetune_method("lora", "nf4 (bitsandbytes)"), "qlora")
        self.assertEqual(memory.lora_targets("q_proj,v_proj"), "attention_qkv")
        self.assertEqual(memory.lora_targets("q,v (lora_query, lora_value)"), "attention_qkv")
        self.assertEqual(memory.lora_targets("q_proj,k_proj,v_proj,o_proj"), "attention")
        self.assertEqual(memory.lora_targets("all-linear"), "all")
        self.assertEqual(memory.lora_targets("down_proj,gate_proj,up_proj"), "mlp")
        self.assertEqual(memory.memory_kind("max_reserved (minus init)"), "reserved_minus_init")
        with self.assertRaises(ValueError):
            memory.memory_kind("something else")

    def test_deepspeed_named_by_the_source_keeps_16_bit_weights(self):
        # PEFT's accelerate guides: the same bf16 flag is autocast under FSDP, DeepSpeed's BF16 engine
        # (16-bit module, FP32 master copies) under DeepSpeed, which only the source names.
        framework, flag = "hf (transformers Trainer/TRL + peft + accelerate)", "bf16 mixed (accelerate mixed_precision bf16)"
        self.assertEqual(memory.memory_convention(framework, flag, "amp_bf16",
                                                  "HF PEFT accelerate docs (Llama-2-70B SFT, DeepSpeed)"), "master_weights")
        self.assertEqual(memory.memory_convention(framework, flag, "amp_bf16",
                                                  "HF PEFT accelerate docs (Llama-2-70B SFT, FSDP)"), "autocast")
        self.assertEqual(memory.memory_convention(framework, flag, "fp32", "... DeepSpeed"), "")



class UntiedEmbeddings(unittest.TestCase):
    """Synthetic hints (not measurements): only what untie_embeddings reads."""

    def test_litgpt_keeps_an_lm_head_of_its_own_for_a_tied_model(self):
        hint = "llama; hidden 2048, layers 16, heads 32, kv_heads 8, ffn 8192, vocab 128256, tied emb"
        self.assertEqual(memory.untie_embeddings("litgpt", hint), "true")
        self.assertEqual(memory.untie_embeddings("torchtune", hint), "")
        self.assertEqual(memory.untie_embeddings("litgpt", "llama; hidden 4096, vocab 32000"), "")

    def test_every_gemma_ties_its_embeddings(self):
        self.assertEqual(memory.untie_embeddings("litgpt", "gemma; hidden 2048, layers 18, vocab 256000"), "true")
        self.assertEqual(memory.untie_embeddings("litgpt", "gemma2; hidden 2304, layers 26, vocab 256000"), "true")
        self.assertEqual(memory.untie_embeddings("litgpt", "phi3; hidden 3072, vocab 32064"), "")


class CrossEntropy(unittest.TestCase):
    """Synthetic source names and flags (not measurements): only what cross_entropy reads."""

    def test_a_published_chunked_loss_is_chunked_whoever_ran_it(self):
        self.assertEqual(memory.cross_entropy("torchtune", "any table", "torch.compile; chunked CE"), "chunked")
        self.assertEqual(memory.cross_entropy("torchtune", "any table", "torch.compile"), "")
        self.assertEqual(memory.cross_entropy("litgpt", "any table", "eager"), "chunked")

    def test_torchtitan_with_tensor_parallelism_runs_loss_parallel(self):
        self.assertEqual(memory.cross_entropy("torchtitan", "any table", "", "llama3-70b", "8"), "loss_parallel")
        self.assertEqual(memory.cross_entropy("torchtitan", "any table", "", "llama3-8b", "1"), "")
        self.assertEqual(memory.cross_entropy("torchtune", "any table", "", "llama3-70b", "8"), "")

    def test_the_llama_3_1_table_follows_its_recipes_loss(self):
        source = "torchtune README 2024-09 Llama 3.1 memory/speed table"
        self.assertEqual(memory.cross_entropy("torchtune", source, "torch.compile", "llama3-8b"), "chunked")
        self.assertEqual(memory.cross_entropy("torchtune", source, "torch.compile", "llama3.1-405b"), "")


class LitgptStack(unittest.TestCase):
    """Synthetic row fields (not measurements): only what the litgpt rules read."""

    @staticmethod
    def rec(config, commit, num_gpus="4", micro_batch="4", shard="fsdp"):
        return {"sharding": shard, "num_gpus": num_gpus, "micro_batch": micro_batch, "source": "config hub",
                "notes": "config %s read at commit %s (row last changed in %s); epochs 1" % (config, commit, commit)}

    def test_a_config_hub_run_uses_its_configs_devices_and_accumulation(self):
        phi2 = self.rec("config_hub/finetune/phi-2/full.yaml", "5895df1004")
        self.assertEqual(memory.litgpt_config_run(phi2, "litgpt"), (2, 8))
        # 8 // 2 devices // micro-batch 4: no accumulation, so no no_sync.
        self.assertEqual(memory.litgpt_stack(phi2, "litgpt", "full"), ("", "", "", "1"))
        gemma = self.rec("config_hub/finetune/gemma-2b/full.yaml", "5895df1004", micro_batch="1")
        self.assertEqual(memory.litgpt_stack(gemma, "litgpt", "full"), ("step", "", "", "4"))
        # Another commit of the same config, a single-GPU row or another origin: nothing read.
        self.assertIsNone(memory.litgpt_config_run(self.rec("config_hub/finetune/phi-2/full.yaml", "0000000"), "litgpt"))
        self.assertIsNone(memory.litgpt_config_run(self.rec("config_hub/finetune/phi-2/full.yaml", "5895df1004",
                                                            shard="none"), "litgpt"))
        self.assertIsNone(memory.litgpt_config_run(phi2, "torchtune"))

    def test_litgpt_adapters_drop_out_with_fused_qkv(self):
        self.assertEqual(memory.litgpt_adapters("litgpt", "qlora", "llama3-8b"), ("0.05", "fused_qkv"))
        self.assertEqual(memory.litgpt_adapters("litgpt", "lora", "gemma2-9b"), ("0.1", "fused_qkv"))
        self.assertEqual(memory.litgpt_adapters("litgpt", "full", "llama3-8b"), ("", ""))
        self.assertEqual(memory.litgpt_adapters("peft", "lora", "llama3-8b"), ("", ""))


if __name__ == "__main__":
    unittest.main()
