#pragma once
// The memory-convention table: which copies of the training state a framework keeps, and at which
// dtype, for a precision policy. The policy says how the step computes; the convention says how the
// framework stores weights, gradients, master weights and optimizer state. A new framework
// convention is one entry in memory_convention.cpp.
#include <string>
#include <string_view>
#include <vector>

#include "ptp/vocab/attention_kernel.hpp"
#include "ptp/vocab/precision.hpp"

namespace ptp::vocab {

// A stored tensor's dtype relative to the policy: `compute` is the policy's 16-bit dtype (FP32 for
// the FP32/TF32 policies), `fp32` always four bytes, `fp32_unless_fp16` FP32 except under FP16
// policies (Megatron forces FP32 gradient accumulation for BF16 only).
enum class StateDtype { compute, fp32, fp32_unless_fp16 };

// How the loss holds the logits at its peak (the start of backward), per logit element:
//   fused   - Megatron's vocab-parallel cross-entropy: the logits + the FP32 softmax it saves;
//   unfused - logits.float() then log_softmax (HF's loss, torchtitan): the FP32 log-probabilities,
//             their gradient and the FP32 gradient of the logits (the caller frees the 16-bit
//             logits before backward: torchtitan `del pred`, HF Trainer keeps only the loss);
//   chunked - the logits, upcast a chunk at a time (litgpt, torchtune's chunked loss): the logits
//             and their gradient;
//   compiled - the same loss under torch.compile (torchtitan compiles it with the model since
//             2025-04, #1033): Inductor fuses the FP32 upcast and log-softmax, saves the 16-bit
//             logits and per-row statistics, and writes the 16-bit gradient: the logits and their
//             gradient, as chunked;
//   loss_parallel - unfused under tensor parallelism in eager mode (torchtitan's default with TP):
//             DTensor's vocab-parallel log-softmax runs the decomposed ops, so its backward holds the
//             FP32 log-probabilities, the FP32 gradient, the exp(log-probs) x sum product and the FP32
//             input gradient at once (four FP32 tensors).
enum class CrossEntropy { fused, unfused, chunked, compiled, loss_parallel };
const std::vector<std::string>& cross_entropy_names();  // indexed by CrossEntropy
double logits_bytes(CrossEntropy ce, double activation_bytes);

// What `activation_checkpointing: selective` redoes in the framework the convention stands for:
//   core_attention      - Megatron-LM/NeMo `--recompute-granularity selective` (recompute module
//                         core_attn): the attention scores, softmax and dropout on them; with a
//                         fused (flash) attention kernel nothing else;
//   every_other_matmul  - torchtitan's per-op SAC policy: per block, the outputs of the fused
//                         attention kernel and of every second matmul (the 1st, 3rd, ... in forward
//                         order) are kept with the block input, everything else is redone.
enum class SelectiveRecompute { core_attention, every_other_matmul };

// How a convention's stack computes, apart from which copies of the state it keeps: the loss, the
// norms, selective recompute, the FP8 stash, the expert GEMMs and the attention's stash. One part of
// MemoryConvention and of TrainingStateBytes, copied whole from one to the other, then overridden
// where the job names its own (StateOverrides).
struct StackComputation {
  CrossEntropy cross_entropy = CrossEntropy::fused;
  // Eager PyTorch modules, not fused kernels: RMSNorm/LayerNorm (HF's LlamaRMSNorm, litgpt's
  // RMSNorm) upcast their input and keep that FP32 copy for backward, besides the 16-bit input; a
  // gated MLP (F.silu(gate) * up) keeps the activation's output for the product's backward, beside
  // gate and up (Op::eager_extra_saved), where a fused SwiGLU recomputes it.
  bool eager_kernels = false;
  SelectiveRecompute selective = SelectiveRecompute::core_attention;
  // Under an FP8 policy the GEMMs stash their FP8 input casts for backward (Transformer Engine);
  // false where they stash the 16-bit inputs and re-cast them in backward (torchao float8).
  bool stashes_fp8_inputs = true;
  // A routed MLP's grouped GEMMs run as one kernel per local expert: Transformer Engine's
  // GroupedLinear issues one cuBLAS GEMM per expert (transformer_engine/pytorch/cpp_extensions/gemm.py
  // general_grouped_gemm), HF and DeepSpeed loop over experts in Python. False where one grouped
  // kernel runs them all (torchtitan's torch._grouped_mm). Small experts then pay a kernel's latency
  // and launch each.
  bool gemm_per_expert = true;
  // GQA/MQA: the stack repeats the K/V heads to the query heads before the attention kernel, which
  // keeps the repeated copies (HF's and torchtitan's repeat_kv, litgpt's expand + reshape); false
  // where the kernel is given the KV heads (Transformer Engine's num_gqa_groups).
  bool repeats_kv_heads = true;
  // The rotary embedding's input, the projection output holding q and k, stays alive to the backward
  // (RoPE itself keeps only its frequencies): litgpt's fused qkv does, through the value it passes to
  // attention as a view of it, unless repeating grouped K/V heads copies q, k and v (GQA/MQA). False
  // where the projections are separate tensors (HF, torchtitan) or Transformer Engine copies the
  // value contiguous.
  bool rope_keeps_input = true;
};
bool operator==(const StackComputation& a, const StackComputation& b);

struct MemoryConvention {
  std::string id;           // job-spec name: memory.convention
  std::string description;
  std::string source;       // where the layout is documented
  StateDtype params = StateDtype::compute;  // weights as the model holds them between steps
  bool master_copy = false;  // a separate FP32 master copy when params are not FP32
  StateDtype grads = StateDtype::compute;  // gradient buffers (Megatron's main_grad is FP32)
  StateDtype optimizer_states = StateDtype::fp32;
  // FP8 copies kept per weight under an FP8 policy (Transformer Engine caches the FP8 weight and its
  // transpose between micro-batches); 0 where the FP8 cast is made on the fly.
  double fp8_weight_copies = 0;
  // The forward reads 16-bit copies gathered from FP32 shards (FSDP's param_dtype), not the stored
  // weights.
  bool gathers_compute_copy = false;
  StackComputation computation;
  // The fused-attention kernel family the convention's stacks run (attention_kernel.hpp).
  std::string attention_kernel = "flash2";
};

const std::vector<MemoryConvention>& memory_convention_table();
const MemoryConvention* find_memory_convention(std::string_view id);
std::vector<std::string> memory_convention_ids();
// The convention a precision policy implies when the job names none (autocast for the amp_
// policies, FP32 master weights for the 16-bit and narrower ones).
const MemoryConvention& default_memory_convention(const PrecisionPolicy& p);

// How a LoRA job stores its frozen base: at the weights' dtype, or 4-bit NormalFloat (QLoRA,
// Dettmers et al. 2023) with one FP32 absmax per 64 weights, or with those constants themselves
// quantised to 8 bits per 256 blocks (double quantisation).
enum class BaseQuantization { none, nf4, nf4_double };
double quantized_base_bytes(BaseQuantization q);  // bytes per quantised weight, constants included

// Per-parameter bytes of each stored copy, the convention applied to the policy, with the job's
// explicit dtypes overriding it where it names them.
struct StateOverrides {
  std::string grad_dtype, optimizer_dtype;  // empty: the convention's
  int master_weights = -1;                  // -1: the convention's; 0 or 1 forces it
  std::string cross_entropy;                // empty: the convention's
  std::string attention_kernel;             // empty: the convention's
};
struct TrainingStateBytes {
  const MemoryConvention* convention = nullptr;
  double param = 4, master = 0, grad = 4, optimizer_state = 4;  // optimizer_state: per state tensor
  double forward_weight = 4;  // weights as the forward reads them (embedding lookups)
  double fp8_weight_copies = 0;                                 // bytes per weight
  StackComputation computation;                       // the convention's, with the job's overrides
  const AttentionKernel* attention_kernel = nullptr;  // never null once resolved
};
// Every field equal (caches of what the state determines compare it whole).
bool operator==(const TrainingStateBytes& a, const TrainingStateBytes& b);
TrainingStateBytes training_state_bytes(const PrecisionPolicy& p, const MemoryConvention& c,
                                        const StateOverrides& overrides = {});
// The convention's StackComputation and attention kernel, with the job's overrides: an FSDP
// convention implied by the sharding takes these from the precision's default convention.
void apply_stack_computation(TrainingStateBytes& s, const MemoryConvention& c, const StateOverrides& overrides);

}  // namespace ptp::vocab
