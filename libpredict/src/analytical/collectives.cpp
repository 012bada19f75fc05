// Collectives over an arbitrary group (TP, CP, EP, DP x CP, HSDP shard), with the bandwidth logic
// of allreduce_time: the intra-node link at its efficiency inside a node, the node's NICs across
// nodes. All groups of a layout run at once, so a group with r ranks on a node gets r of the node's
// gpus_per_node NIC shares.
#include <algorithm>
#include <cmath>

#include "ptp/predict/detail/parallelism.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {
double intra_gbs(const ResolvedJob& job, const AnalyticalConstants& k) { return intra_node_bus_gbs(job, k); }
// Bandwidth one GPU gets out of its node when every GPU of the node is sending.
double nic_share_gbs(const ResolvedJob& job, const AnalyticalConstants& k) {
  const int gpn = std::max(1, job.gpus_per_node);
  return job.fabric->node_bandwidth_gbs(gpn) / gpn * k.inter_node_efficiency;
}
}  // namespace

double collective_seconds(Collective c, double bytes, const CommGroup& g, const ResolvedJob& job,
                          const AnalyticalConstants& k, int buckets) {
  const int n = g.size;
  if (n <= 1 || bytes <= 0) return 0;
  const int rpn = std::clamp(g.ranks_per_node, 1, n);
  const int nodes = (n + rpn - 1) / rpn;
  const double hop_latency = (nodes > 1 ? job.fabric->latency_us * 1e-6 * 2 * std::ceil(std::log2(nodes)) : 0) +
                             2e-6 * (rpn - 1);
  const double latency = std::max(1, buckets) * (k.collective_base_latency_s + hop_latency);
  if (c == Collective::all_to_all) {
    // Each rank keeps 1/n, sends (rpn-1)/n over the intra-node link and (n-rpn)/n through its NIC share.
    const double intra = rpn > 1 ? bytes * (rpn - 1) / n / (intra_gbs(job, k) * 1e9) : 0;
    const double inter = nodes > 1 ? bytes * (n - rpn) / n / (nic_share_gbs(job, k) * 1e9) : 0;
    return std::max(intra, inter) + latency;
  }
  double busbw = rpn > 1 ? intra_gbs(job, k) : 1e9;
  if (nodes > 1) busbw = std::min(busbw, nic_share_gbs(job, k) * rpn);
  return bus_factor(c, n) * bytes / (busbw * 1e9) + latency;
}

double p2p_seconds(double bytes, bool same_node, const ResolvedJob& job, const AnalyticalConstants& k) {
  if (bytes <= 0) return 0;
  const double gbs = same_node ? intra_gbs(job, k) : nic_share_gbs(job, k);
  return bytes / (gbs * 1e9) + k.collective_base_latency_s + (same_node ? 0 : job.fabric->latency_us * 1e-6);
}

}  // namespace ptp::predict
