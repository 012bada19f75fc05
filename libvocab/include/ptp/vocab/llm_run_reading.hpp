#pragma once
// How the LLM frameworks behind the published throughput tables (datasets/runs.csv, source = llm)
// ran what their tables leave out. ptp-train (training_data.cpp) and the LLM evaluation
// (libeval/src/llm_rows.cpp) read the rows through these rules, so a run is the same job in both;
// docs/llm-evaluation.md states them with their sources.
#include <optional>
#include <string>
#include <vector>

#include "ptp/vocab/training_layout.hpp"

namespace ptp::vocab {

// "megatron" (NeMo, Megatron-Bridge, Megatron-Core), "megatron-2021" (the April 2021 Megatron-LM
// table: no sequence parallel, no distributed optimizer), "llm-foundry", "torchtitan", "automodel",
// "llm.c" or "other".
std::string llm_framework_key(const std::string& published_framework);

// The row as published: an empty sharding, 0 grad_accum or 0 gpus_per_node is "not stated".
struct PublishedLlmRun {
  std::string framework, sharding, gpu, model, precision;  // model: the zoo id
  std::string precision_as_published;
  std::string notes;
  int num_gpus = 1, gpus_per_node = 0, tp = 1, pp = 1;
  double batch = 0, grad_accum = 0;
};

// The job the row ran:
// - Megatron-family recipes use the distributed optimizer (zero1) when no sharding is named (or
//   "none", i.e. plain DDP around it) and sequence parallel whenever TP > 1; the 2021 table neither;
// - other frameworks with no sharding named shard fully (FSDP), torchtitan with TP > 1 uses SP;
// - torchtitan's batch is the local batch, which its pipeline schedules split into micro-batches of
//   one sequence (pipeline_parallel_microbatch_size default);
// - torchtitan stores its state as FSDP mixed precision does and recomputes per its op-level SAC
//   policy (memory convention "fsdp"); the others take the precision's default convention;
// - GB200/GB300 NVL72: the rack's NVLink domain is the node (64-GPU partitions beyond one rack);
// - Megatron-Bridge's Nemotron 3 Super recipes (perf_recipes/nemotronh, NeMo 26.x) run its MTP module
//   at two depths (mtp_num_layers 2, mtp_use_repeated_layer) kept in BF16 (keep_mtp_spec_in_bf16);
//   under NVFP4 the last 14 layers stay BF16 (nemotron_3_super_bf16_with_nvfp4_mixed) and so do the
//   attention and LatentMoE projections (te_quant.cfg).
// - attention kernels: Megatron-family recipes run Transformer Engine's cuDNN attention; llm-foundry
//   flash-attn 2 (its README), torchtitan PyTorch SDPA (FlashAttention-2 backend); NeMo AutoModel
//   runs TE attention unless its "kernel optimizations" name TorchSDPA or FlexAttn.
// - FP8 scaling: a row whose precision as published says "rowwise" ran torchao's row-wise recipe;
//   every other FP8 row scales per tensor (or per MX block).
// - torchtitan rows name torch.compile and async TP in their notes: read as the job's compile and
//   overlap.tp_comm.
struct LlmRunReading {
  std::string framework_key;
  Sharding sharding = Sharding::none;
  bool sequence_parallel = false;
  std::string memory_convention;  // empty: the precision policy's default
  std::string attention_kernel;   // job spec attention_kernel
  std::string fp8_recipe;         // job spec fp8_recipe; empty: the default (tensorwise)
  double batch = 0, grad_accum = 0;  // grad_accum stays 0 when neither the row nor a rule states it
  int gpus_per_node = 8;
  int mtp_depth = 0;  // 0: one depth per MTP module
  int bf16_last_layers = 0;
  std::vector<std::string> bf16_modules;  // job spec low_precision.bf16_modules
  // The stack as torchtitan's tables state it per row: "torch.compile" / "torch.compile=no"
  // (job spec compile), "Async TP" / "AsyncTP" / "vanilla TP" (overlap.tp_comm). Unset: not stated.
  std::optional<bool> compile, tp_comm_overlap;
};
LlmRunReading read_llm_run(const PublishedLlmRun& row);

// The zoo id a row names in its notes ("source canonical id: qwen3-30b-a3b"), or "".
std::string canonical_model_from_notes(const std::string& notes);

}  // namespace ptp::vocab
