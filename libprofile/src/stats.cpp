#include "ptp/profile/stats.hpp"

#include <algorithm>
#include <cmath>

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

namespace {
double median_of_sorted(const std::vector<double>& v) {
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
}  // namespace

Summary summarize(std::vector<double> samples) {
  Summary s;
  s.count = static_cast<int>(samples.size());
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.min = samples.front();
  s.max = samples.back();
  s.median = median_of_sorted(samples);
  double sum = 0;
  for (double x : samples) sum += x;
  s.mean = sum / s.count;
  if (s.count < 2) return s;
  double ss = 0;
  for (double x : samples) ss += (x - s.mean) * (x - s.mean);
  s.stddev = std::sqrt(ss / (s.count - 1));
  // MAD instead of stddev: one preempted sample on a shared host must not keep the loop running.
  std::vector<double> dev;
  dev.reserve(samples.size());
  for (double x : samples) dev.push_back(std::fabs(x - s.median));
  std::sort(dev.begin(), dev.end());
  s.noise = s.median > 0 ? 1.4826 * median_of_sorted(dev) / s.median : 0;
  return s;
}

StopReason should_stop(const std::vector<double>& samples, double elapsed_s, const StopRule& rule,
                       bool check_noise) {
  const int n = static_cast<int>(samples.size());
  if (n >= rule.max_reps) return StopReason::max_reps;
  if (n >= 1 && elapsed_s >= rule.max_time_s) return StopReason::time_cap;
  if (check_noise && n >= std::max(rule.min_reps, 2) && summarize(samples).noise < rule.rel_noise) return StopReason::converged;
  return StopReason::keep_going;
}

const char* stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::converged: return "converged";
    case StopReason::max_reps: return "max_reps";
    case StopReason::time_cap: return "time_cap";
    case StopReason::keep_going: return "running";
  }
  return "running";
}

}  // namespace ptp::profile
