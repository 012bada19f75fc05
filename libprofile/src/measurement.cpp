#include "ptp/profile/measurement.hpp"

#include <chrono>

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

void Measurement::measure(const std::function<double()>& sample, const std::function<void()>& flush) {
  samples_.clear();
  for (int i = 0; i < rule_.warmup; ++i) {
    if (rule_.l2_flush && flush) flush();
    sample();
  }
  // The cap is on wall time of the loop, flushes included: a cold 1 MiB copy behind a 256 MiB flush
  // must not run thousands of samples just because the copies themselves are short.
  const auto loop_start = std::chrono::steady_clock::now();
  for (;;) {
    if (rule_.l2_flush && flush) flush();
    const double t = sample();
    samples_.push_back(t);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - loop_start).count();
    // Re-evaluate the noise about 8 times per doubling of the sample count: microsecond ops can take
    // 10^5 samples in their time cap, and sorting them after every sample would dominate the run.
    const std::size_t n = samples_.size();
    const bool check_noise = n < 64 || n % (n / 8) == 0;
    StopReason r = should_stop(samples_, elapsed, rule_, check_noise);
    bool stop = r != StopReason::keep_going;
    if (agree_) stop = agree_(stop);
    if (stop) {
      stop_ = r == StopReason::keep_going ? StopReason::converged : r;
      return;
    }
  }
}

void Measurement::measure_host(const std::function<void()>& op, const std::function<void()>& flush) {
  measure(
      [&] {
        const auto t0 = std::chrono::steady_clock::now();
        op();
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      },
      flush);
}

}  // namespace ptp::profile
