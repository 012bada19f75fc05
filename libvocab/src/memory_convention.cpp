#include "ptp/vocab/memory_convention.hpp"

#include <tuple>

#include "ptp/vocab/enum_names.hpp"

namespace ptp::vocab {

namespace {
MemoryConvention convention(const char* id, const char* description, const char* source) {
  MemoryConvention c;
  c.id = id, c.description = description, c.source = source;
  return c;
}
}  // namespace

// One row per convention, every field named; fields a row does not name keep the defaults of
// MemoryConvention and StackComputation.
const std::vector<MemoryConvention>& memory_convention_table() {
  using D = StateDtype;
  using E = CrossEntropy;
  using S = SelectiveRecompute;
  static const std::vector<MemoryConvention> table = [] {
    std::vector<MemoryConvention> t;
    t.reserve(8);  // each row is filled through its reference before the next is added
    auto& master = t.emplace_back(convention(
        "master_weights", "16-bit weights and gradients, FP32 master weights and optimizer state",
        "NVIDIA mixed-precision training guide; Apex O2; DeepSpeed ZeRO (2 + 2 + 12 bytes per parameter)"));
    master.params = D::compute, master.master_copy = true, master.grads = D::compute, master.optimizer_states = D::fp32;
    master.computation.cross_entropy = E::unfused;
    master.computation.rope_keeps_input = false;
    master.attention_kernel = "flash2";

    auto& megatron = t.emplace_back(convention(
        "megatron",
        "16-bit weights, FP32 main gradients under BF16, FP32 master weights and optimizer state; TE FP8 weight "
        "caches; fused cross-entropy",
        "Megatron-LM distributed optimizer docs (bf16 param + fp32 grad: 6 + 12/d; fp16: 4 + 16/d); "
        "Transformer Engine FP8 weight and transpose caches"));
    megatron.params = D::compute, megatron.master_copy = true, megatron.grads = D::fp32_unless_fp16;
    megatron.optimizer_states = D::fp32, megatron.fp8_weight_copies = 2;
    megatron.computation.cross_entropy = E::fused;
    megatron.computation.repeats_kv_heads = false, megatron.computation.rope_keeps_input = false;
    megatron.attention_kernel = "cudnn";

    auto& autocast = t.emplace_back(convention(
        "autocast", "FP32 weights, gradients and optimizer state; 16-bit copies made per op by autocast",
        "PyTorch torch.autocast / torch.amp; Apex O1"));
    autocast.params = D::fp32, autocast.grads = D::fp32, autocast.optimizer_states = D::fp32;
    autocast.computation.cross_entropy = E::unfused;
    autocast.computation.rope_keeps_input = false;
    autocast.attention_kernel = "flash2";

    auto& fsdp = t.emplace_back(convention(
        "fsdp",
        "FSDP mixed precision (FSDP1 MixedPrecision, FSDP2 MixedPrecisionPolicy): FP32 sharded weights "
        "(they are the master), 16-bit gathered copies, FP32 reduced gradients and optimizer state; "
        "torchtitan's per-op selective recompute; torchao float8 GEMMs stash 16-bit inputs; one grouped GEMM kernel for all experts",
        "PyTorch FSDP MixedPrecision(param_dtype=bf16, reduce_dtype=fp32); torchtitan activation_checkpoint "
        "selective_ac_option=op (_save_list, every second mm); torchao float8 linear (saves high-precision inputs); "
        "torchtitan MoE GroupedExperts (torch._grouped_mm)"));
    fsdp.params = D::fp32, fsdp.grads = D::fp32, fsdp.optimizer_states = D::fp32, fsdp.gathers_compute_copy = true;
    fsdp.computation.cross_entropy = E::unfused, fsdp.computation.selective = S::every_other_matmul;
    fsdp.computation.stashes_fp8_inputs = false, fsdp.computation.gemm_per_expert = false;
    fsdp.computation.rope_keeps_input = false;
    fsdp.attention_kernel = "flash2";

    auto& pure = t.emplace_back(convention(
        "pure",
        "everything at the 16-bit dtype: weights, gradients and optimizer state, no master copy; eager modules (norms, gated MLP)",
        "litgpt precision bf16-true; torchtune dtype bf16; HF Trainer on bf16 weights without AMP"));
    pure.params = D::compute, pure.grads = D::compute, pure.optimizer_states = D::compute;
    pure.computation.cross_entropy = E::unfused, pure.computation.eager_kernels = true;
    pure.computation.rope_keeps_input = true;
    pure.attention_kernel = "flash2";
    return t;
  }();
  return table;
}

const MemoryConvention* find_memory_convention(std::string_view id) { return find_by_id(memory_convention_table(), id); }

std::vector<std::string> memory_convention_ids() { return ids_of(memory_convention_table()); }

// BF16 and narrower runs are mostly Megatron-LM/NeMo/Megatron-Bridge or DeepSpeed's BF16 optimizer,
// both of which accumulate gradients in FP32; FP16 keeps FP16 gradients (Apex O2, DeepSpeed).
const MemoryConvention& default_memory_convention(const PrecisionPolicy& p) {
  if (p.weight_cast_each_step) return *find_memory_convention("autocast");
  if (p.half_precision && !p.dynamic_loss_scaling) return *find_memory_convention("megatron");
  return *find_memory_convention("master_weights");
}

const std::vector<std::string>& cross_entropy_names() {
  static const std::vector<std::string> names{"fused", "unfused", "chunked", "compiled", "loss_parallel"};
  return names;
}

double logits_bytes(CrossEntropy ce, double activation_bytes) {
  switch (ce) {
    case CrossEntropy::fused:
      return activation_bytes + 4;
    case CrossEntropy::unfused:
      return 3 * 4;
    case CrossEntropy::chunked:
    case CrossEntropy::compiled:
      return 2 * activation_bytes;
    case CrossEntropy::loss_parallel:
      // DTensor's vocab-parallel log-softmax (torch.distributed.tensor.parallel.loss_parallel) runs the
      // decomposed ops: its backward holds the FP32 log-probabilities, the FP32 gradient from the NLL,
      // the exp(log-probs) x sum product and the FP32 input gradient at once.
      return 4 * 4;
  }
  return activation_bytes;
}

double quantized_base_bytes(BaseQuantization q) {
  switch (q) {
    case BaseQuantization::none:
      return 0;
    case BaseQuantization::nf4:
      return 0.5 + 4.0 / 64;  // 4 bits + one FP32 absmax per 64-weight block
    case BaseQuantization::nf4_double:
      return 0.5 + 1.0 / 64 + 4.0 / (64 * 256);  // absmax at 8 bits, one FP32 constant per 256 blocks
  }
  return 0;
}

TrainingStateBytes training_state_bytes(const PrecisionPolicy& p, const MemoryConvention& c,
                                        const StateOverrides& o) {
  const double compute = p.half_precision ? 2 : 4;
  auto bytes = [&](StateDtype d) {
    // FP16 policies are the ones that scale the loss.
    if (d == StateDtype::fp32_unless_fp16) return p.dynamic_loss_scaling ? compute : 4.0;
    return d == StateDtype::fp32 ? 4.0 : compute;
  };
  TrainingStateBytes s;
  s.convention = &c;
  s.param = bytes(c.params);
  s.forward_weight = c.gathers_compute_copy ? compute : s.param;
  const bool master = o.master_weights >= 0 ? o.master_weights == 1 : c.master_copy;
  s.master = master && s.param < 4 ? 4 : 0;
  s.grad = o.grad_dtype.empty() ? bytes(c.grads) : dtype_bytes(o.grad_dtype);
  s.optimizer_state = o.optimizer_dtype.empty() ? bytes(c.optimizer_states) : dtype_bytes(o.optimizer_dtype);
  s.fp8_weight_copies = p.fp8_scaling ? c.fp8_weight_copies : 0;
  apply_stack_computation(s, c, o);
  return s;
}

void apply_stack_computation(TrainingStateBytes& s, const MemoryConvention& c, const StateOverrides& o) {
  s.computation = c.computation;
  const auto& names = cross_entropy_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == o.cross_entropy) s.computation.cross_entropy = static_cast<CrossEntropy>(i);
  s.attention_kernel = find_attention_kernel(o.attention_kernel.empty() ? c.attention_kernel : o.attention_kernel);
}

bool operator==(const StackComputation& a, const StackComputation& b) {
  static_assert(sizeof(StackComputation) == 16, "a field joined StackComputation: compare it here too");
  return std::tie(a.cross_entropy, a.eager_kernels, a.selective, a.stashes_fp8_inputs, a.gemm_per_expert,
                  a.repeats_kv_heads, a.rope_keeps_input) ==
         std::tie(b.cross_entropy, b.eager_kernels, b.selective, b.stashes_fp8_inputs, b.gemm_per_expert,
                  b.repeats_kv_heads, b.rope_keeps_input);
}

bool operator==(const TrainingStateBytes& a, const TrainingStateBytes& b) {
  static_assert(sizeof(TrainingStateBytes) == 80, "a field joined TrainingStateBytes: compare it here too");
  return std::tie(a.convention, a.param, a.master, a.grad, a.optimizer_state, a.forward_weight, a.fp8_weight_copies,
                  a.computation, a.attention_kernel) ==
         std::tie(b.convention, b.param, b.master, b.grad, b.optimizer_state, b.forward_weight, b.fp8_weight_copies,
                  b.computation, b.attention_kernel);
}

}  // namespace ptp::vocab
