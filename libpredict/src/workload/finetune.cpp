// LoRA on a frozen base (Hu et al. 2021; PEFT's LoraLayer, NeMo/Megatron-Bridge's LoRA adapters).
//
// Frozen weights: forward and the data gradient run as before; the weight-gradient GEMM, the
// gradient buffers, the optimizer state and the data-parallel reduction disappear (Op::frozen), and
// a frozen GEMM no longer stashes its input (only a weight gradient reads it).
//
// Adapters, per targeted projection: y += scale * B(A(x)), accumulated in B's epilogue. Fused projections (QKV, gate+up) get one
// A/B pair per projection, expressed as one A GEMM of width projections x r and one B GEMM whose
// FLOPs and weights equal the per-projection sum; concatenated experts get one pair per expert.
// Tensor parallelism follows Megatron-Bridge/NeMo's ParallelLinearAdapter:
//   column-parallel base (input replicated, output split): A replicated (r is tiny: splitting it
//     would need an all-gather of the T x r activation), B column-parallel like its base, so the
//     adapter output lands split exactly like the base output and needs no collective;
//   row-parallel base (input split, output a partial sum): A row-parallel on the local input slice,
//     B replicated applied to A's partial sum; B is linear, so its partial outputs join the base's
//     partial sum in the base's own all-reduce (no extra collective);
//   replicated base (MLA down-projections, routers): both replicated.
// Expert adapters are split over EP ranks with their experts.
#include <algorithm>
#include <cmath>

#include "ptp/predict/workload_transforms.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {

bool has_weight(const Op& op) {
  // A tied LM head owns no parameters but multiplies by the (frozen) embedding table.
  return op.params > 0 || op.kind == OpKind::gemm || op.kind == OpKind::conv;
}

// `keeps_input`: a 4-bit block projection of bitsandbytes before 0.43.2 saves its input anyway
// (finetune.quantized_keeps_inputs). An adapted one's input is the adapter's, stashed once, unless the
// adapter drops out its own copy: then the projection keeps the undropped input as well.
void freeze(Op& op, bool keeps_input) {
  op.frozen = true;
  switch (op.kind) {
    case OpKind::gemm:
    case OpKind::conv:
      op.bwd_flops = op.input_grad ? op.fwd_flops : 0;  // data gradient only
      if (!keeps_input) op.saved = 0;                   // the input fed only the weight gradient
      break;
    case OpKind::rnn:
      op.bwd_flops /= 2;  // the recurrence still back-propagates; the gate weights' gradients go
      break;
    case OpKind::embedding:
      op.bwd_flops = 0;  // no scatter-add into a frozen table
      break;
    case OpKind::norm:  // affine parameters: their gradient is a by-product of the input gradient
    case OpKind::attention_bmm:
    case OpKind::fused_attention:
    case OpKind::softmax:
    case OpKind::elementwise:
    case OpKind::pooling:
    case OpKind::loss:
      break;
  }
}

Op adapter_gemm(const Op& base, const char* suffix, double m, double k, double n, TpRole role, ExpertSplit split) {
  Op o;
  o.name = base.name + suffix;
  o.kind = OpKind::gemm;
  o.layer = base.layer;
  o.in_block = base.in_block;
  o.m = m, o.n = n, o.k = k;
  o.fwd_flops = 2 * m * k * n;
  o.bwd_flops = o.fwd_flops * (base.input_grad ? 2 : 1);
  o.elements_in = m * k;
  o.elements_out = m * n;
  o.params = k * n;
  o.saved = m * k;
  o.input_grad = base.input_grad;
  o.uses_gemm_math = true;
  // Adapters are plain (non-Transformer-Engine) linears: Megatron-Bridge/NeMo's ParallelLinearAdapter
  // builds them from megatron.core ColumnParallelLinear, so under an FP8/FP4 recipe they run at 16
  // bits with no scaling casts, like the GEMMs a recipe keeps out of FP8 (low_precision).
  o.high_precision = true;
  o.tp_role = role;
  o.expert_split = split;
  return o;
}

bool targeted(const Op& op, const FinetuneSpec& f) {
  return (op.projection == Projection::attention && f.adapts_attention_projection(op.attention_output)) ||
         (op.projection == Projection::mlp && f.targets_mlp());
}

// Adapter modules per fused projection: PEFT and torchtune wrap each q, k, v, gate and up Linear
// apart; litgpt one LoRAQKVLinear for q, k, v but fc_1 and fc_2 apart; Megatron-Bridge and NeMo
// one adapter per fused linear_qkv and linear_fc1.
double adapter_modules(const Op& base, const FinetuneSpec& f) {
  if (f.adapter_modules == AdapterModules::fused) return 1;
  if (f.adapter_modules == AdapterModules::fused_qkv && base.projection == Projection::attention) return 1;
  return base.fused_projections;
}

std::string num(double v) { return std::to_string(static_cast<long long>(std::llround(v))); }

}  // namespace

void apply_finetune(Workload& w, const JobSpec& job, const std::string& model) {
  const FinetuneSpec& f = job.finetune;
  if (!f.lora()) return;
  const double r = f.rank;
  std::vector<Op> ops;
  ops.reserve(w.ops.size() * 2);
  double smallest_in = 0, smallest_out = 0;
  for (const Op& base : w.ops) {
    ops.push_back(base);
    const bool quantized_projection = f.quantized_base() && base.in_block && base.projection != Projection::none;
    const bool quantized_head = f.quantized_base() && f.quantized_head && in_module(base, "lm_head") && base.params > 0;
    if (has_weight(base)) {
      freeze(ops.back(), f.quantized_keeps_inputs && (quantized_head || (quantized_projection && (!targeted(base, f) || f.dropout > 0))));
      ops.back().stored_4bit = quantized_projection || quantized_head;
    }
    if (base.kind != OpKind::gemm || !targeted(base, f)) continue;
    const double G = base.weight_groups, P = base.fused_projections;
    const bool by_n = base.expert_split == ExpertSplit::n, by_k = base.expert_split == ExpertSplit::k;
    const double in = base.k / (by_k ? G : 1);
    const double out = base.narrowest_output > 0 ? base.narrowest_output : base.n / (by_n ? G : 1) / P;
    if (smallest_in == 0 || std::min(in, out) < std::min(smallest_in, smallest_out)) {
      smallest_in = in;
      smallest_out = out;
    }
    TpRole a_role = TpRole::replicated, b_role = TpRole::replicated;
    if (base.tp_role == TpRole::column) b_role = TpRole::column;
    if (base.tp_role == TpRole::row) a_role = TpRole::row;
    const bool expert = base.expert_split != ExpertSplit::none;
    Op& a = ops.emplace_back(adapter_gemm(base, ".lora_a", base.m, base.k, P * r * (by_n ? G : 1), a_role,
                                          by_n ? ExpertSplit::n : (by_k ? ExpertSplit::k : ExpertSplit::none)));
    // Without dropout every adapter of a fused projection reads the same input tensor, kept once.
    // With it each adapter module keeps its dropped copy and the mask.
    if (f.dropout > 0) {
      const double modules = adapter_modules(base, f);
      a.saved *= modules;
      a.saved_mask = a.saved;
    } else {
      a.reads_attention_output = base.reads_attention_output;  // A's input is the base's, one tensor
    }
    // B's FLOPs and weights: per matrix r x (its projections' outputs); experts stack their r along k.
    Op& b = ops.emplace_back(adapter_gemm(base, ".lora_b", base.m, r * (expert ? G : 1), by_n ? base.n / G : base.n,
                                          b_role, expert ? ExpertSplit::k : ExpertSplit::none));
    // scale * B(A(x)) accumulates into the projection's output in B's epilogue (beta = 1), as the
    // fused LoRA kernels of NeMo AutoModel and Megatron-Bridge do: one more read of that output.
    b.elements_in += base.elements_out;
  }
  if (smallest_in == 0) {
    const bool attention = f.adapts_attention_projection(false);
    std::string what = attention && f.targets_mlp() ? "attention or MLP" : (attention ? "attention" : "MLP");
    fail_field(job, "finetune.targets",
               "model '" + model + "' has no " + what + " projections for LoRA to adapt (LoRA is modelled for transformer models)");
  }
  if (r > std::min(smallest_in, smallest_out))
    fail_field(job, "finetune.rank",
               num(r) + " exceeds the smallest adapted projection of '" + model + "' (" + num(smallest_in) + " x " +
                         num(smallest_out) + "); a LoRA rank must not exceed a projection's input or output size");
  if (ops.size() > GraphBuilder::kMaxOps) fail_field(job, "finetune", "LoRA expands the model to too many ops");
  w.ops = std::move(ops);
}

}  // namespace ptp::predict
