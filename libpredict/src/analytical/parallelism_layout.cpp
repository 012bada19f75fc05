// Layouts and communicator shapes: which ranks form the TP, CP, DP, EP groups and how many of them
// share a node. Rank order is Megatron's (tp fastest, then cp, dp, pp), so TP groups fill a node
// first and DP/PP neighbours are tp*cp (or tp*cp*dp) ranks apart.
#include <algorithm>

#include "ptp/predict/detail/parallelism.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

Layout make_layout(const ResolvedJob& job) {
  const auto& j = job.job;
  const auto& p = j.parallelism;
  Layout l;
  l.tp = p.tensor;
  l.pp = p.pipeline;
  l.vp = p.virtual_pipeline;
  l.cp = p.context;
  l.ep = p.expert;
  l.dp = std::max(1, job.data_parallel);
  l.sp = p.sequence_parallel && p.tensor > 1;
  l.sharding = j.sharding;
  l.recompute = j.activation_checkpointing;
  l.gemm_per_expert = job.state.computation.gemm_per_expert;
  l.gpus_per_node = std::max(1, job.gpus_per_node);
  l.num_gpus = j.cluster.num_gpus;
  l.microbatches = std::max(1, j.grad_accum);
  l.tokens = job.work().tokens;
  l.elem_bytes = job.policy->half_precision ? 2 : 4;
  if (job.shared && job.shared->limits) {
    const auto& known = *job.shared->limits;
    l.hidden = known.hidden;
    l.kv_dim = known.kv_dim;
    l.experts_per_token = known.experts_per_token;
    l.expert_width = known.expert_width;
  } else if (job.model && job.model->family == "transformer") {
    const TransformerWidths w = transformer_widths(job.model->params);
    l.hidden = w.hidden;
    l.kv_dim = w.kv_dim;
    l.experts_per_token = w.experts_per_token;
    l.expert_width = w.expert_width;
  }
  return l;
}

TransformerWidths transformer_widths(const YamlReader& mp) {
  TransformerWidths w;
  w.hidden = mp.get_number("hidden", 1, 1e6);
  const double heads = mp.get_number("heads", 1, 1e4);
  const double head_dim = mp.get_number("head_dim", 1, 1e5, w.hidden / heads);
  w.kv_dim = mp.get_number("kv_heads", 1, 1e4, heads) * head_dim;
  w.experts_per_token = mp.get_number("experts_per_token", 0, 1e4, 0);
  w.expert_width = mp.get_number("expert_latent", 0, 1e6, 0);
  if (w.expert_width <= 0) w.expert_width = w.hidden;
  return w;
}

namespace {
// A group of `size` ranks whose members are `stride` ranks apart.
CommGroup strided(int size, int stride, int gpus_per_node) {
  CommGroup g;
  g.size = std::max(1, size);
  const int per_node = stride >= gpus_per_node ? 1 : gpus_per_node / stride;
  g.ranks_per_node = std::clamp(per_node, 1, g.size);
  return g;
}
}  // namespace

CommGroup tp_group(const Layout& l) { return strided(l.tp, 1, l.gpus_per_node); }
CommGroup cp_group(const Layout& l) { return strided(l.cp, l.tp, l.gpus_per_node); }
// CP ranks hold the same weights, so dense gradients are reduced over DP x CP (Megatron does this).
CommGroup dp_group(const Layout& l) { return strided(l.dp * l.cp, l.tp, l.gpus_per_node); }
// Experts are not tensor-split (expert tensor parallel 1): the EP group is ep consecutive ranks of
// the tp x cp x dp block, and the expert weights' DP group is what is left of it.
CommGroup ep_group(const Layout& l) { return strided(l.ep, 1, l.gpus_per_node); }
CommGroup expert_dp_group(const Layout& l) {
  return strided(std::max(1, l.tp * l.cp * l.dp / std::max(1, l.ep)), l.ep, l.gpus_per_node);
}
// HSDP shards inside a node and replicates across nodes.
CommGroup hsdp_shard_group(const Layout& l) {
  const int in_node = std::max(1, l.gpus_per_node / l.tp);
  return strided(std::min(l.dp * l.cp, in_node), l.tp, l.gpus_per_node);
}
bool pp_peer_same_node(const Layout& l) {
  return static_cast<long>(l.tp) * l.cp * l.dp < l.gpus_per_node;
}

}  // namespace ptp::predict
