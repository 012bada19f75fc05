#include "ptp/profile/plan.hpp"

#include <algorithm>
#include <cmath>

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

namespace {
// Achieved fractions of the spec-sheet peaks: microbenchmarks at useful sizes reach roughly these on
// recent NVIDIA parts; the planner only needs the right order of magnitude.
constexpr double kComputeEfficiency = 0.7;
constexpr double kMemoryEfficiency = 0.8;
constexpr double kLinkEfficiency = 0.8;
}  // namespace

double Roofline::flops(const std::string& math) const {
  if (!gpu) return math == "loop" ? host_loop_flops : math == "libm" ? host_libm_flops : host_flops;
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
  r.flush_bytes = 2 * gpu.l2_cache_mb * 1e6;  // the flush memsets twice the L2
  r.launch_s = 5e-6;        // kernel launch + event pair
  r.point_setup_s = 0.05;   // allocations, cuBLASLt/cuDNN plan selection, data init
  return r;
}

double Roofline::flush_s() const { return flush_bytes / bytes_per_s + launch_s; }

double Roofline::unconverged_share(double rel_noise) const {
  if (noise_median <= 0 || noise_log_spread <= 0) return 0;
  if (rel_noise <= 0) return 1;
  // P(noise > rel_noise) for log-normal noise: 1 - Phi(ln(rel_noise / median) / spread).
  return 0.5 * std::erfc(std::log(rel_noise / noise_median) / (noise_log_spread * std::sqrt(2.0)));
}

Roofline host_roofline() {
  // The CI-class host the project runs on: 2 cores of an AMD EPYC (Zen 4) KVM guest with OpenBLAS,
  // shared with other jobs. Rates from host-smoke and --from-job rows there (docs/profiling.md):
  // sgemm 170-200 GFLOP/s on a quiet machine, 60-100 next to other jobs (the plan takes 120); plain
  // loops 3.0-3.7 GFLOP/s (reduction, dropout); GELU's std::tanh 0.7-1.0 GFLOP/s of its nominal 14
  // flops per element; memcpy 17-20 GB/s from DRAM; first touch of fresh buffers 1.7 GB/s; a 256 MiB
  // cache flush 17 ms. Loops left unconverged: at rel_noise 0.02 (host-smoke) 48-52% of the points on
  // a quiet machine, 70-78% next to a compile; at 0.03 (--from-job) 6-24% quiet, 40-60% busy. The
  // noise model (median 2.5%, log spread 0.6) puts the plan between the two: 64% and 38%. A bigger
  // host runs its calls faster, but a loop that never converges takes max_time_s anywhere: the
  // stopping rule, not these rates, makes most of a host plan.
  Roofline r;
  r.target = "host";
  r.host_flops = 120e9;
  r.host_loop_flops = 3.2e9;
  r.host_libm_flops = 0.8e9;
  r.bytes_per_s = 16e9;
  r.link_bytes_per_s = 4e9;  // shared-memory MPI between local ranks
  r.first_touch_bytes_per_s = 1.6e9;
  r.flush_bytes = 256.0 * (1 << 20);  // host::flush_caches streams a 256 MiB buffer
  r.launch_s = 1e-6;
  r.point_setup_s = 1e-3;  // the point's row (written and fsync'ed), buffers freed
  r.noise_median = 0.025;
  r.noise_log_spread = 0.6;
  return r;
}

double estimate_call_s(const Work& w, const Roofline& r) {
  if (w.link_bytes > 0)
    return 10e-6 + w.link_bytes / r.link_bytes_per_s;
  const double compute = w.flops > 0 ? w.flops / r.flops(w.math.empty() ? "fp32" : w.math) : 0;
  const double memory = w.bytes > 0 ? w.bytes / r.bytes_per_s : 0;
  return r.launch_s + std::max(compute, memory);
}

PointEstimate estimate_point(const PlannedPoint& p, const Roofline& r) {
  PointEstimate e;
  if (!p.work.unsupported.empty()) {  // refused before any allocation or call: its row only
    e.s = e.converged_s = e.capped_s = r.point_setup_s;
    return e;
  }
  const StopRule& rule = p.rule;
  const double call = estimate_call_s(p.work, r);
  const double flush = rule.l2_flush ? r.flush_s() : 0;
  const double per_sample = call + flush;
  // Measurement::measure: stop after the first sample that reaches max_reps or max_time_s of loop
  // time; from max(min_reps, 2) samples on, also once the noise is below rel_noise.
  const double cap_samples = per_sample > 0 ? std::ceil(rule.max_time_s / per_sample) : rule.max_reps;
  e.reps_capped = static_cast<int>(std::min<double>(rule.max_reps, std::max(1.0, cap_samples)));
  e.reps_converged = std::min(e.reps_capped, std::max(rule.min_reps, 2));
  const double fixed = r.point_setup_s + p.work.setup_s +
                       (r.first_touch_bytes_per_s > 0 ? p.work.alloc_bytes / r.first_touch_bytes_per_s : 0) +
                       rule.warmup * per_sample;
  e.converged_s = fixed + e.reps_converged * per_sample;
  e.capped_s = fixed + e.reps_capped * per_sample;
  if (!r.gpu) {
    e.s = e.converged_s + r.unconverged_share(rule.rel_noise) * (e.capped_s - e.converged_s);
    return e;
  }
  // GPU: the stopping rule usually converges a little after min_reps on a quiet GPU.
  const int reps = std::min(rule.max_reps, std::max(rule.min_reps, 10));
  const double measured = std::min(rule.max_time_s, reps * call) + reps * flush;
  e.s = r.point_setup_s + p.work.setup_s + rule.warmup * (call + flush) + measured;
  return e;
}

double estimate_point_s(const PlannedPoint& p, const Roofline& r) { return estimate_point(p, r).s; }

}  // namespace ptp::profile
