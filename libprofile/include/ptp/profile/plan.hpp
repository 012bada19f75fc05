#pragma once
// Wall-time estimates from a roofline: each call costs launch latency + max(flops / achieved peak,
// bytes / achieved bandwidth), collectives latency + bus bytes / link bandwidth; a point is its
// setup, warm-up and the repetitions the stopping rule is expected to take, capped by its time cap.
#include <string>
#include <vector>

#include "ptp/profile/sweep.hpp"
#include "ptp/vocab/hardware.hpp"

namespace ptp::profile {

struct Roofline {
  std::string target;        // gpu catalog id or "host"
  const GpuSpec* gpu = nullptr;
  double host_flops = 0;     // host backend: flop/s of one socket (rough constant)
  double bytes_per_s = 0;    // achieved memory bandwidth
  double link_bytes_per_s = 0;
  double launch_s = 0;       // per call
  double point_setup_s = 0;  // per point
  double flops(const std::string& math) const;  // achieved flop/s for a math mode
};

Roofline gpu_roofline(const GpuSpec& gpu);
Roofline host_roofline();

double estimate_call_s(const Work& w, const Roofline& r);
double estimate_point_s(const PlannedPoint& p, const Roofline& r);

}  // namespace ptp::profile
