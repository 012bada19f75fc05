#include "steady_state.hpp"

#include <algorithm>
#include <cmath>

#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::training_log {

namespace {

// A tenth of the run, at least one step: the first logged step always carries start-up (CUDA
// context, NCCL communicators, compilation, the first allocations) and frameworks log it.
constexpr double kWarmupShare = 0.10;
// A step this far above the steady median right after the fixed warm-up is still warming up
// (autotuning, a lazily built graph, allocator growth); step-to-step noise of a healthy run is a few
// percent, so 1.5x is far outside it.
constexpr double kWarmupOutlier = 1.5;

double percentile(const std::vector<double>& sorted, double p) {
  const double at = p * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (at - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

std::vector<double> sorted_copy(std::vector<double>::const_iterator from, std::vector<double>::const_iterator to) {
  std::vector<double> v(from, to);
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

SteadyStats steady_state(const std::vector<double>& seconds, const std::string& path, const std::string& where) {
  const int n = static_cast<int>(seconds.size());
  if (n < kMinSteadySteps + 1)
    throw InputError(path, 0, 0, "",
                     std::to_string(n) + (n == 1 ? " step" : " steps") + " logged" + where + ", at least " +
                         std::to_string(kMinSteadySteps + 1) + " needed: the first is warm-up and " +
                         std::to_string(kMinSteadySteps) +
                         " steady-state steps must remain (run longer or log more often)");
  const int max_dropped = n - kMinSteadySteps;
  int dropped = std::min(max_dropped, std::max(1, static_cast<int>(std::ceil(kWarmupShare * n))));
  const double after_warmup = percentile(sorted_copy(seconds.begin() + dropped, seconds.end()), 0.5);
  while (dropped < max_dropped && seconds[static_cast<std::size_t>(dropped)] > kWarmupOutlier * after_warmup) ++dropped;
  const auto steady = sorted_copy(seconds.begin() + dropped, seconds.end());
  SteadyStats s;
  s.step_s = percentile(steady, 0.5);
  s.spread = (percentile(steady, 0.9) - percentile(steady, 0.1)) / s.step_s;
  s.logged = n;
  s.dropped = dropped;
  s.used = n - dropped;
  return s;
}

}  // namespace ptp::predict::training_log
