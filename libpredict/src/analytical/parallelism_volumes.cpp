// The closed-form arithmetic of parallel training: pipeline bubbles and in-flight micro-batches,
// bytes moved by each kind of parallelism, and model FLOPs for MFU. Kept apart from the timing
// code so tests can check each formula against the papers it comes from.
#include <algorithm>
#include <cmath>

#include "ptp/predict/detail/parallelism.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

double bubble_fraction(int pp, int vp, int microbatches) {
  if (pp <= 1) return 0;
  return static_cast<double>(pp - 1) / (static_cast<double>(std::max(1, vp)) * std::max(1, microbatches));
}

double in_flight_microbatches(int pp, int vp, int microbatches, int stage) {
  const double m = std::max(1, microbatches);
  if (pp <= 1) return 1;
  // 1F1B: stage s starts its first backward after pp - s forwards.
  double n = std::min(m, static_cast<double>(pp - stage));
  if (vp > 1) n *= 1.0 + static_cast<double>(pp - 1) / (static_cast<double>(pp) * vp);
  return n;
}

double bus_factor(Collective c, int n) {
  if (n <= 1) return 0;
  const double f = static_cast<double>(n - 1) / n;
  return c == Collective::all_reduce ? 2 * f : f;
}

TpVolume tp_volume_per_block(double tokens, double hidden, double elem_bytes, int tp, bool sp) {
  TpVolume v;
  if (tp <= 1) return v;
  v.bytes = tokens * hidden * elem_bytes;  // the full [tokens x hidden] activation
  // All-reduce after attention-out and MLP-down (forward) and after the QKV and MLP-up input
  // gradients (backward). SP: each all-reduce becomes reduce-scatter + all-gather.
  v.kind = sp ? Collective::all_gather : Collective::all_reduce;
  v.collectives = sp ? 8 : 4;
  return v;
}

ShardingVolume sharding_volume(double params, double param_bytes, double grad_bytes, Sharding sharding,
                               int microbatches) {
  ShardingVolume v;
  const double m = std::max(1, microbatches);
  if (sharding == Sharding::none) {
    v.all_reduce = params * grad_bytes;  // once per step, after the last micro-batch
  } else if (!shards_weights(sharding)) {  // ZeRO-1, ZeRO-2
    // Distributed optimizer: reduce-scatter the gradients, all-gather the updated parameters.
    v.reduce_scatter = params * grad_bytes;
    v.all_gather = params * param_bytes;
  } else {
    // ZeRO-3 / FSDP: gather weights for forward and again for backward, reduce-scatter gradients,
    // every micro-batch (no gradient accumulation in unsharded buffers).
    v.all_gather = 2 * m * params * param_bytes;
    v.reduce_scatter = m * params * grad_bytes;
  }
  return v;
}

double cp_bytes_per_block(double tokens_per_rank, double kv_dim_per_rank, double elem_bytes, int cp) {
  if (cp <= 1) return 0;
  const double chunk = tokens_per_rank * 2 * kv_dim_per_rank * elem_bytes;  // K and V of the local chunk
  return (cp - 1) * chunk * 3;  // forward: K,V; backward: K,V again and dK,dV
}

double ep_bytes_per_block(double tokens_per_rank, double hidden, double topk, double elem_bytes) {
  return 4 * tokens_per_rank * topk * hidden * elem_bytes;  // dispatch + combine, forward + backward
}

double model_flops_per_microbatch(const Workload& w, bool include_conv) {
  double flops = 0;
  for (const auto& op : w.ops) {
    // A frozen weight (LoRA base) has no weight-gradient GEMM: forward + data gradient only.
    const double passes = op.frozen ? (op.input_grad ? 2 : 1) : 3;
    if (op.kind == OpKind::gemm || op.kind == OpKind::attention_bmm || op.kind == OpKind::rnn ||
        (include_conv && op.kind == OpKind::conv))
      flops += passes * op.fwd_flops;
    // Fused attention is stored with the causal halving; the MFU convention counts it whole.
    else if (op.kind == OpKind::fused_attention) flops += 3 * 4 * op.batch * op.m * op.n * op.k;
  }
  return flops;
}

double attention_model_flops_per_microbatch(const Workload& w) {
  double flops = 0;
  for (const auto& op : w.ops) {
    const double passes = op.frozen ? (op.input_grad ? 2 : 1) : 3;
    if (op.kind == OpKind::attention_bmm) flops += passes * op.fwd_flops;
    else if (op.kind == OpKind::fused_attention) flops += 3 * 4 * op.batch * op.m * op.n * op.k;
  }
  return flops;
}

}  // namespace ptp::predict
