// Data-parallel traffic of one pipeline stage under each sharding choice, and how much of it the
// compute hides. Collectives are issued per bucket (per block for FSDP) on a side stream as the
// gradients become ready / before the weights are needed, so at least one bucket is always exposed.
#include <algorithm>
#include <cmath>

#include "ptp/predict/detail/parallelism.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {
struct Traffic {
  double seconds = 0, last_bucket = 0;
};
Traffic bucketed(Collective c, double bytes, const CommGroup& g, const ResolvedJob& job, const AnalyticalConstants& k,
                 double units = 0) {
  Traffic t;
  if (bytes <= 0 || g.size <= 1) return t;
  const double per = units > 0 ? bytes / units : std::min(bytes, k.bucket_bytes);
  const int buckets = static_cast<int>(std::ceil(bytes / per - 1e-9));
  t.seconds = collective_seconds(c, bytes, g, job, k, buckets);
  t.last_bucket = collective_seconds(c, per, g, job, k);
  return t;
}
// What a side-stream collective adds to the critical path when `compute` seconds can hide it.
// A stack that does not overlap it (overlap.grad_reduce / param_gather: false) waits for all of it.
double exposed(const Traffic& t, double compute, const ParallelConstants& pk, bool overlapped) {
  if (t.seconds <= 0) return 0;
  if (!overlapped) return t.seconds;
  return std::max(t.last_bucket, t.seconds - pk.dp_overlap * compute);
}
}  // namespace

DpComm dp_communication(const Stage& s, const StageTime& t, const ResolvedJob& job, const Layout& l,
                        const AnalyticalConstants& k, const ParallelConstants& pk) {
  DpComm out;
  const auto& p = *job.policy;
  // FSDP mixed precision gathers the low-precision copy; gradients reduce in the policy's dtype.
  const double gather_bytes = p.half_precision ? std::min(job.state.param, 2.0) : job.state.param;
  const double grad_bytes = p.comm_bytes;
  const double fwd = t.fwd, bwd = t.bwd + t.recompute;
  const int m = l.microbatches;
  const double units = std::max(1, s.blocks);

  // Dense weights reduce over DP x CP; expert weights over the expert-DP group.
  // Frozen weights (LoRA base) reduce nothing; ZeRO-3/FSDP still gather them like any weight.
  // Frozen block projections sharing a flat parameter with the adapters (memory.frozen_grads)
  // reduce their gradients too (memory.cpp).
  struct Part {
    double params, frozen, frozen_reduced;
    CommGroup group;
  };
  const auto& mem = job.job.memory;
  const bool reduce_hidden = job.job.overlap.grad_reduce.value_or(true);
  const bool gather_hidden = job.job.overlap.param_gather.value_or(true);
  const std::vector<Part> parts{{s.params - s.expert_params, s.frozen_params - s.frozen_expert_params,
                                 mem.frozen_grads ? s.frozen_linear_params : 0,
                                 l.sharding == Sharding::hsdp ? hsdp_shard_group(l) : dp_group(l)},
                                {s.expert_params, s.frozen_expert_params, 0, expert_dp_group(l)}};
  for (const auto& part : parts) {
    const double frozen = l.shards_params() ? part.frozen : 0;
    if (part.params + frozen <= 0 || part.group.size <= 1) continue;
    auto v = sharding_volume(part.params, gather_bytes, grad_bytes, l.sharding, m);
    if (frozen > 0) v.all_gather += sharding_volume(frozen, gather_bytes, grad_bytes, l.sharding, m).all_gather;
    if (l.sharding == Sharding::none) {
      const auto ar = bucketed(Collective::all_reduce, v.all_reduce, part.group, job, k);
      out.total += ar.seconds;
      out.exposed += exposed(ar, bwd, pk, reduce_hidden);
    } else if (!l.shards_params()) {  // ZeRO-1, ZeRO-2
      // Reduce-scatter overlaps the last backward; the parameter all-gather the next first forward.
      const auto rs = bucketed(Collective::reduce_scatter, v.reduce_scatter, part.group, job, k);
      const auto ag = bucketed(Collective::all_gather, v.all_gather, part.group, job, k);
      out.total += rs.seconds + ag.seconds;
      out.exposed += exposed(rs, bwd, pk, reduce_hidden) + exposed(ag, fwd, pk, gather_hidden);
    } else if (l.pp > 1) {
      // FSDP under a pipeline schedule keeps the stage's weights gathered for the whole step and
      // reduce-scatters once after the last micro-batch (torchtitan, Megatron FSDP): ZeRO-1 traffic.
      const auto ag = bucketed(Collective::all_gather, (part.params + frozen) * gather_bytes, part.group, job, k, units);
      const auto rs = bucketed(Collective::reduce_scatter, part.params * grad_bytes, part.group, job, k, units);
      out.total += ag.seconds + rs.seconds;
      out.exposed += exposed(ag, fwd, pk, gather_hidden) + exposed(rs, bwd, pk, reduce_hidden);
    } else {
      // Per micro-batch: gather block by block ahead of forward, again ahead of backward, and
      // reduce-scatter the block's gradients behind it; under no_sync accumulation
      // (memory.grad_sync: step) only behind the last micro-batch's backward.
      const int reductions = mem.grad_sync == GradSync::step ? 1 : m;
      const double reduced = part.params + part.frozen_reduced;
      const auto ag = bucketed(Collective::all_gather, v.all_gather / (2 * m), part.group, job, k, units);
      const auto rs = bucketed(Collective::reduce_scatter, reduced * grad_bytes, part.group, job, k, units);
      const Traffic back{ag.seconds + rs.seconds, ag.last_bucket + rs.last_bucket};
      out.total += m * 2 * ag.seconds + reductions * rs.seconds;
      // Behind the backward the block's gather and reduce-scatter share one side stream.
      const double behind = reduce_hidden && gather_hidden
                                ? exposed(back, bwd, pk, true)
                                : exposed(ag, bwd, pk, gather_hidden) + exposed(rs, bwd, pk, reduce_hidden);
      out.exposed += m * exposed(ag, fwd, pk, gather_hidden) + reductions * behind +
                     (m - reductions) * exposed(ag, bwd, pk, gather_hidden);
      if (l.sharding == Sharding::hsdp && part.group.size < l.dp * l.cp) {
        // Then the shard's gradients are all-reduced across the replicas (one rank per node).
        const CommGroup replicas{l.dp * l.cp / part.group.size, 1};
        const auto ar = bucketed(Collective::all_reduce, part.params / part.group.size * grad_bytes, replicas, job, k);
        out.total += ar.seconds;
        out.exposed += exposed(ar, bwd, pk, reduce_hidden);
      }
    }
  }
  return out;
}

}  // namespace ptp::predict
