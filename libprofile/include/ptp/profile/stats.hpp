#pragma once
// Sample statistics and the stopping rule shared by every backend: repeat until the relative noise
// of the samples drops below a threshold (after a minimum count), or a repetition/time cap is hit.
#include <string>
#include <vector>

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

struct Summary {
  int count = 0;
  double median = 0, min = 0, max = 0, mean = 0, stddev = 0;
  double noise = 0;  // robust relative spread: 1.4826 * MAD / median (0 when fewer than 2 samples)
};

Summary summarize(std::vector<double> samples);

struct StopRule {
  int warmup = 2;
  int min_reps = 5;
  int max_reps = 200;
  double rel_noise = 0.02;  // stop when Summary::noise < rel_noise
  double max_time_s = 2.0;  // wall-clock cap of the repetition loop (flushes included, warm-up excluded)
  bool l2_flush = false;    // cold runs: flush caches before every sample
};

enum class StopReason { keep_going, converged, max_reps, time_cap };
// `check_noise` = false skips the O(n log n) noise test (the caller amortises it over long runs).
StopReason should_stop(const std::vector<double>& samples, double elapsed_s, const StopRule& rule,
                       bool check_noise = true);
const char* stop_reason_name(StopReason r);

}  // namespace ptp::profile
