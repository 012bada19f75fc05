#include "ptp/profile/plan.hpp"

#include <algorithm>
#include <cmath>

namespace ptp::profile {

namespace {
// Achieved fractions of the spec-sheet peaks: microbenchmarks at useful sizes reach roughly these on
// recent NVIDIA parts; the planner only needs the right order of magnitude.
constexpr double kComputeEfficiency = 0.7;
constexpr double kMemoryEfficiency = 0.8;
constexpr double kLinkEfficiency = 0.8;
}  // namespace

double Roofline::flops(const std::string& math) const {
  if (!gpu) return host_flops;
  double peak = gpu->peak_flops(math);
  if (peak <= 0) peak = gpu->peak_flops("fp32");  // unsupported math fails fast at run time anyway
  return peak * kComputeEfficiency;
}

Roofline gpu_roofline(const GpuSpec& gpu) {
  Roofline r;
  r.target = gpu.id;
  r.gpu = &gpu;
  r.bytes_per_s = gpu.bandwidth_bytes_per_s() * kMemoryEfficiency;
  r.link_bytes_per_s = (gpu.intra_bandwidth_gbs > 0 ? gpu.intra_bandwidth_gbs : 16.0 * gpu.pcie_gen) * 1e9 *
                       kLinkEfficiency;
  r.launch_s = 5e-6;        // kernel launch + event pair
  r.point_setup_s = 0.05;   // allocations, cuBLASLt/cuDNN plan selection, data init
  return r;
}

Roofline host_roofline() {
  // Rough constants for one x86 server socket slice as CI sees it (2 cores): the host plan is a guide.
  Roofline r;
  r.target = "host";
  r.host_flops = 20e9;
  r.bytes_per_s = 4e9;
  r.link_bytes_per_s = 4e9;  // shared-memory MPI between local ranks
  r.launch_s = 1e-6;
  r.point_setup_s = 0.05;  // allocation and first touch
  return r;
}

double estimate_call_s(const Work& w, const Roofline& r) {
  if (w.link_bytes > 0)
    return 10e-6 + w.link_bytes / r.link_bytes_per_s;
  const double compute = w.flops > 0 ? w.flops / r.flops(w.math.empty() ? "fp32" : w.math) : 0;
  const double memory = w.bytes > 0 ? w.bytes / r.bytes_per_s : 0;
  return r.launch_s + std::max(compute, memory);
}

double estimate_point_s(const PlannedPoint& p, const Roofline& r) {
  const double call = estimate_call_s(p.work, r);
  // The stopping rule usually converges a little after min_reps on a quiet GPU; L2 flushes cost a
  // memset of twice the L2 per sample.
  const double flush = p.rule.l2_flush && r.gpu ? 2 * r.gpu->l2_cache_mb * 1e6 / r.bytes_per_s + r.launch_s : 0;
  const int reps = std::min(p.rule.max_reps, std::max(p.rule.min_reps, 10));
  const double measured = std::min(p.rule.max_time_s, reps * call) + reps * flush;
  return r.point_setup_s + p.work.setup_s + p.rule.warmup * (call + flush) + measured;
}

}  // namespace ptp::profile
