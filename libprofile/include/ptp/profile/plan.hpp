#pragma once
// Wall-time estimates, deterministic (nothing is benchmarked while planning). Each call costs a
// per-call overhead + max(flops / achieved rate of its math, bytes / achieved bandwidth); collectives
// latency + bus bytes / link bandwidth. A point is its setup (per point, the benchmark's own, and the
// first touch of the buffers it allocates), its warm-up calls and its repetition loop, with a cache
// flush before every warm-up call and sample when the rule asks for cold runs.
//
// The loop follows the stopping rule the runner applies (Measurement::measure): it stops at the first
// sample where max_reps is reached or max_time_s of loop time (flushes included) has passed, or, from
// max(min_reps, 2) samples on, when the noise has converged. Whether the noise converges is decided
// at run time by the point's timing noise against rel_noise, so each point has two bounds:
// `converged_s` (the loop converges at min_reps) and `capped_s` (it runs to max_reps or max_time_s).
// On the host the plan's figure is their mix: a loop stays unconverged with the probability that its
// noise exceeds rel_noise, with host timing noise log-normal around 2.5% (Roofline::unconverged_share;
// rel_noise 0.02 leaves 64% of the loops at their caps, 0.03 38%). On a GPU the figure keeps the
// older model: about 10 repetitions (event timings converge) capped by max_time_s, plus the flushes.
#include <string>
#include <vector>

#include "ptp/profile/sweep.hpp"
#include "ptp/vocab/hardware.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

struct Roofline {
  std::string target;        // gpu catalog id or "host"
  const GpuSpec* gpu = nullptr;
  // Host backend, per Work::math: "fp32" BLAS sgemm over all cores, "loop" a plain C++ loop on one
  // core (one flop ~ one scalar or vector op), "libm" a loop calling a libm function per element.
  double host_flops = 0;
  double host_loop_flops = 0;
  double host_libm_flops = 0;
  double bytes_per_s = 0;       // achieved memory bandwidth
  double link_bytes_per_s = 0;
  double first_touch_bytes_per_s = 0;  // host: allocating and filling fresh pages (Work::alloc_bytes)
  double flush_bytes = 0;       // bytes one cache flush streams (l2_flush), at bytes_per_s
  double launch_s = 0;          // per call (and per sample on the host: clock reads, bookkeeping)
  double point_setup_s = 0;     // per point
  // Host: relative timing noise of a point (1.4826 MAD / median), log-normal: median and log spread.
  double noise_median = 0, noise_log_spread = 0;
  double flops(const std::string& math) const;  // achieved flop/s for a math mode
  double flush_s() const;                       // one cache flush
  // Share of repetition loops whose noise stays above rel_noise (they run to their caps).
  double unconverged_share(double rel_noise) const;
};

Roofline gpu_roofline(const GpuSpec& gpu);
Roofline host_roofline();

struct PointEstimate {
  double s = 0;            // the plan's figure (host: the mix of the bounds; GPU: ~10 repetitions)
  double converged_s = 0;  // every repetition loop converges at max(min_reps, 2) samples
  double capped_s = 0;     // every loop runs to max_reps or max_time_s
  int reps_converged = 0, reps_capped = 0;  // samples in the loop under each bound
};

double estimate_call_s(const Work& w, const Roofline& r);
PointEstimate estimate_point(const PlannedPoint& p, const Roofline& r);
double estimate_point_s(const PlannedPoint& p, const Roofline& r);  // estimate_point(p, r).s

}  // namespace ptp::profile
