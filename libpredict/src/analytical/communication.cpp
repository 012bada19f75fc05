// Bucketed ring all-reduce: bus bandwidth limited by NVLink/PCIe inside a node and by the node's
// NICs across nodes (NCCL runs one ring per NIC, so a node's total NIC bandwidth is the bus rate).
#include <algorithm>
#include <cmath>

#include "ptp/predict/analytical.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

double intra_node_bus_gbs(const ResolvedJob& job, const AnalyticalConstants& k) {
  const auto& g = *job.gpu;
  const bool nvlink = g.intra_kind.rfind("nvlink", 0) == 0;
  const double p2p = g.intra_bandwidth_gbs * (nvlink ? k.nvlink_efficiency : k.pcie_efficiency);
  if (job.job.cluster.nccl_p2p) return p2p;
  const double pcie_x16_gbs = 16.0 * std::pow(2.0, std::max(0, g.pcie_gen - 3));  // gen3 16, gen4 32, gen5 64
  return std::min(p2p, pcie_x16_gbs * k.shm_staged_efficiency);
}

AllReduceEstimate allreduce_time(double bytes, const ResolvedJob& job, const AnalyticalConstants& k) {
  AllReduceEstimate e;
  const int n = job.data_parallel;
  if (n <= 1 || bytes <= 0) return e;
  const int ranks_per_node = std::max(1, std::min(n, job.gpus_per_node));
  const int nodes = (n + ranks_per_node - 1) / ranks_per_node;
  double busbw = intra_node_bus_gbs(job, k);
  if (ranks_per_node == 1) busbw = 1e9;  // no intra-node hop
  if (nodes > 1) busbw = std::min(busbw, job.fabric->node_bandwidth_gbs(ranks_per_node) * k.inter_node_efficiency);
  e.bus_bandwidth_gbs = busbw;
  e.buckets = static_cast<int>(std::ceil(bytes / k.bucket_bytes));
  const double factor = 2.0 * (n - 1) / n;
  const double hop_latency = (nodes > 1 ? job.fabric->latency_us * 1e-6 * 2 * std::ceil(std::log2(nodes)) : 0) +
                             2e-6 * (ranks_per_node - 1);
  const double per_bucket_latency = k.collective_base_latency_s + hop_latency;
  e.seconds = factor * bytes / (busbw * 1e9) + e.buckets * per_bucket_latency;
  const double last_bytes = bytes - (e.buckets - 1) * k.bucket_bytes;
  e.last_bucket_s = factor * last_bytes / (busbw * 1e9) + per_bucket_latency;
  // The learned level knows only peer-to-peer collectives (every published all-reduce ran with
  // P2P); a host-staged job keeps the analytical answer (and reports communication: analytical).
  if (k.collective_model && job.job.cluster.nccl_p2p) {
    // The learned model answers per bucket size; the total keeps the bucketed structure.
    const double full = k.collective_model->allreduce_seconds(
        std::min(bytes, k.bucket_bytes), job, factor * std::min(bytes, k.bucket_bytes) / (busbw * 1e9) + per_bucket_latency);
    const double last = k.collective_model->allreduce_seconds(last_bytes, job, e.last_bucket_s);
    if (full >= 0 && last >= 0) {
      e.seconds = full * (e.buckets - 1) + last;
      e.last_bucket_s = last;
      e.learned = true;
      e.bus_bandwidth_gbs = factor * std::min(bytes, k.bucket_bytes) / std::max(full, 1e-12) / 1e9;
    }
  }
  return e;
}

}  // namespace ptp::predict
