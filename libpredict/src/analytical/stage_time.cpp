// One pipeline stage, one micro-batch, one GPU: the sharded ops' roofline times, recomputation,
// precision casts, and the model-parallel communication on the critical path (TP collectives,
// context-parallel KV ring, expert all-to-all, pipeline sends).
#include <algorithm>
#include <array>
#include <map>

#include "ptp/predict/detail/parallelism.hpp"
#include "recompute_policy.hpp"
#include "step_memo.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

StageOpSums stage_op_sums(const Stage& s, const ResolvedJob& job, const Layout& l, const AnalyticalConstants& k,
                          bool layer_names) {
  StageOpSums t;
  // A transformer stage's layers are its blocks plus the embedding, head and loss around them.
  t.layers.reserve(static_cast<std::size_t>(s.blocks) + 4);
  t.layer_params.reserve(static_cast<std::size_t>(s.blocks) + 4);
  std::map<int, std::size_t> layer_index;
  int last_layer = 0;
  std::size_t last_index = 0;  // t.layers entry of last_layer (a stage's layers are runs of ops)
  const Recompute recompute = l.recompute;
  const auto times = op_times_of(s, job, l, k);
  const auto redone = forward_redone(s.ops, recompute, job.state.computation.selective);
  // Summed by kind in arrays (a map insert per op was a tenth of a search), then kept as the map.
  std::array<double, kOpKindCount> roofline{};  // only a positive share is ever added
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    const OpTime& ot = times[i];
    t.gpu_fwd += ot.forward_s;
    t.gpu_bwd += ot.backward_s;
    if (op.uses_gemm_math) t.gpu_gemm += ot.forward_s + ot.backward_s;
    t.launch_fwd += ot.forward_launch_s;
    t.launch_bwd += ot.backward_launch_s;
    if (k.op_model) {
      const double learned = ot.forward_learned_s + ot.backward_learned_s;
      t.gpu_learned += learned;
      if (ot.forward_s + ot.backward_s > learned) {
        const auto kind = static_cast<std::size_t>(op.kind);
        roofline[kind] += ot.forward_s + ot.backward_s - learned;
      }
    }
    t.rec_gpu += redone[i] * ot.forward_s;
    t.rec_launch += redone[i] * ot.forward_launch_s;
    if (op.kind == OpKind::fused_attention || op.kind == OpKind::attention_bmm) t.attention += ot.forward_s + ot.backward_s;
    if (op_kept_16bit(op, job)) {
      t.kept_16bit_weights += op.params;
    } else if (op.uses_gemm_math && op.kind != OpKind::fused_attention && op.kind != OpKind::attention_bmm) {
      t.gemm_inputs += op.elements_in;
      t.gemm_outputs += op.elements_out;
    }
    t.first = t.first || op.kind == OpKind::embedding;
    t.last = t.last || op.kind == OpKind::loss;
    if (t.layers.empty() || op.layer != last_layer) {
      auto [it, fresh] = layer_index.emplace(op.layer, t.layers.size());
      if (fresh) {
        const auto dot = layer_names ? op.name.find('.') : std::string::npos;
        t.layers.push_back({!layer_names ? std::string() : dot == std::string::npos ? op.name : op.name.substr(0, dot), 0, 0});
        t.layer_params.push_back(0);
      }
      last_layer = op.layer;
      last_index = it->second;
    }
    t.layers[last_index].forward_s += ot.forward_s;
    t.layers[last_index].backward_s += ot.backward_s;
    if (!op.sparse_update && !op.frozen) t.layer_params[last_index] += op.params;
  }
  for (std::size_t kind = 0; kind < kOpKindCount; ++kind)
    if (roofline[kind] > 0) t.roofline_by_kind[static_cast<OpKind>(kind)] = roofline[kind];
  return t;
}

StageTime stage_time(const Stage& s, const ResolvedJob& job, const Layout& l, const AnalyticalConstants& k,
                     const ParallelConstants& pk, bool layer_names) {
  StageTime t;
  const auto& p = *job.policy;
  const Recompute recompute = l.recompute;
  const std::shared_ptr<const StageOpSums> memo = stage_op_sums_of(s, job, l, k, layer_names);
  const StageOpSums& sums = *memo;
  t.gpu_fwd = sums.gpu_fwd, t.gpu_bwd = sums.gpu_bwd, t.gpu_gemm = sums.gpu_gemm;
  t.launch_fwd = sums.launch_fwd, t.launch_bwd = sums.launch_bwd, t.gpu_learned = sums.gpu_learned;
  t.roofline_by_kind = sums.roofline_by_kind;
  t.layers = sums.layers;
  t.layer_params = sums.layer_params;
  const double gemm_inputs = sums.gemm_inputs, gemm_outputs = sums.gemm_outputs, attention = sums.attention;
  const double rec_gpu = sums.rec_gpu, rec_launch = sums.rec_launch, kept_16bit_weights = sums.kept_16bit_weights;
  // Autocast re-casts FP32 weights each forward; FP8 adds amax/scale/cast passes over GEMM inputs
  // and a cast of the weights (same accounting as the data-parallel model).
  const double bw = job.gpu->bandwidth_bytes_per_s() * k.memory_emax;
  const double weights = s.params + s.frozen_params;  // frozen weights are cast like the rest
  if (p.weight_cast_each_step) t.casts += weights * (4 + 2) / bw;
  if (p.fp8_scaling) t.casts += gemm_inputs * (2 + 1) / bw + (weights - kept_16bit_weights) * (2 + 1) / bw;
  // Backward FP8 GEMMs need the output gradients cast (E5M2) and, for the weight gradient,
  // transposed FP8 copies of inputs and gradients (Transformer Engine cast-transpose kernels).
  t.bwd_casts = p.fp8_scaling ? (gemm_outputs * (2 + 1 + 1) + gemm_inputs * 1) / bw : 0;
  // A row-wise recipe casts each backward operand along that GEMM's reduction axis: the output
  // gradient a second time (read + write), the saved input and the weight again, in place of the
  // input's transposed copy.
  if (job.fp8_recipe && job.fp8_recipe->backward_recasts_operands)
    t.bwd_casts += (gemm_outputs * (2 + 1) + gemm_inputs * (2 + 1 - 1) + (weights - kept_16bit_weights) * (2 + 1)) / bw;
  t.fwd = std::max(t.gpu_fwd, t.launch_fwd) + t.casts;
  t.bwd = std::max(t.gpu_bwd, t.launch_bwd) + t.bwd_casts;  // casts (precision_casts) stay forward-only
  t.recompute = std::max(rec_gpu, rec_launch);
  if (recompute == Recompute::full) t.recompute += t.casts;  // the FP8/autocast casts are redone too

  const double tokens = l.tokens / l.cp;  // per rank before TP
  const bool first = sums.first, last = sums.last;
  if (l.tp > 1 && l.hidden > 0) {
    const auto v = tp_volume_per_block(tokens, l.hidden, l.elem_bytes, l.tp, l.sp);
    const double one = collective_seconds(v.kind, v.bytes, tp_group(l), job, k);
    double n = s.tp_sublayers / 2.0 * v.collectives;  // v counts a block's two sub-layers
    if (l.recompute == Recompute::full) n += s.tp_sublayers / 2.0 * v.collectives / 2.0;  // recomputed forward repeats its collectives
    n += (first ? v.collectives / 4.0 : 0) + (last ? v.collectives / 4.0 : 0);  // vocab-parallel embedding / head
    t.tp_comm = n * one;
    t.tp_exposed = exposed_comm(t.tp_comm, t.gpu_gemm, job.job.overlap.tp_comm, pk.tp_exposed, pk);
  }
  if (l.cp > 1 && l.hidden > 0) {
    const double bytes = cp_bytes_per_block(tokens, l.kv_dim / l.tp, l.elem_bytes, l.cp);
    const auto g = cp_group(l);
    t.cp_comm = s.blocks * p2p_seconds(bytes, g.ranks_per_node >= g.size, job, k);
    t.cp_exposed = std::max(t.cp_comm * (1 - pk.cp_hidden_max), t.cp_comm - pk.cp_overlap * attention);
  }
  if (l.ep > 1 && s.moe_blocks > 0) {
    const double routed = tokens / (l.sp ? l.tp : 1);
    const double bytes = ep_bytes_per_block(routed, l.expert_width, std::max(1.0, l.experts_per_token), l.elem_bytes);
    t.ep_comm = s.moe_blocks * 4 * collective_seconds(Collective::all_to_all, bytes / 4, ep_group(l), job, k);
    t.ep_exposed = exposed_comm(t.ep_comm, t.gpu_fwd + t.gpu_bwd, job.job.overlap.a2a, pk.a2a_exposed, pk);
  }
  if (l.pp > 1) {
    // Activations (and their gradients) cross each chunk boundary; Megatron sends them split over
    // the TP ranks (scatter-gather optimisation / sequence parallel).
    const double bytes = tokens * l.hidden * l.elem_bytes / l.tp;
    t.p2p_comm = 2.0 * l.vp * p2p_seconds(bytes, pp_peer_same_node(l), job, k);
    t.p2p_exposed = exposed_comm(t.p2p_comm, t.gpu_fwd + t.gpu_bwd, job.job.overlap.p2p, pk.p2p_exposed, pk);
  }
  return t;
}

double exposed_comm(double comm, double compute, std::optional<bool> overlapped, double assumed_exposed,
                    const ParallelConstants& pk) {
  if (!overlapped) return comm * assumed_exposed;
  if (!*overlapped) return comm;
  return std::max(comm * (1 - pk.stated_hidden_max), comm - compute);
}

}  // namespace ptp::predict
