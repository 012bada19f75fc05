#include <catch2/catch.hpp>

#include "ptp/profile/measurement.hpp"
#include "ptp/profile/stats.hpp"

using namespace ptp::profile;

TEST_CASE("summary statistics", "[stats]") {
  const Summary s = summarize({3, 1, 2, 4, 100});
  CHECK(s.count == 5);
  CHECK(s.median == 3);
  CHECK(s.min == 1);
  CHECK(s.max == 100);
  CHECK(s.mean == Approx(22));
  CHECK(s.noise == Approx(1.4826 * 1 / 3.0));  // MAD = 1: the outlier does not inflate the noise
  CHECK(summarize({}).count == 0);
  CHECK(summarize({5}).noise == 0);
  CHECK(summarize({2, 4}).median == 3);
}

TEST_CASE("stopping rule: converge, cap repetitions, cap time", "[stats]") {
  StopRule r;
  r.min_reps = 5;
  r.max_reps = 8;
  r.rel_noise = 0.05;
  r.max_time_s = 1.0;
  CHECK(should_stop({1, 1, 1, 1}, 0.1, r) == StopReason::keep_going);  // below min_reps
  CHECK(should_stop({1, 1, 1, 1, 1}, 0.1, r) == StopReason::converged);
  CHECK(should_stop({1, 2, 1, 2, 1, 2}, 0.1, r) == StopReason::keep_going);  // noisy
  CHECK(should_stop({1, 2, 1, 2, 1, 2, 1, 2}, 0.1, r) == StopReason::max_reps);
  CHECK(should_stop({1, 2}, 1.5, r) == StopReason::time_cap);
}

TEST_CASE("measurement repeats until the rule stops it, after warm-up and flushes", "[stats]") {
  StopRule r;
  r.warmup = 3;
  r.min_reps = 4;
  r.max_reps = 50;
  r.rel_noise = 0.01;
  r.max_time_s = 100;
  r.l2_flush = true;
  Measurement m(r);
  int calls = 0, flushes = 0;
  m.measure([&] { return ++calls > 3 ? 1.0 : 9.0; }, [&] { ++flushes; });
  CHECK(m.samples().size() == 4);  // warm-up samples (9.0) are not kept
  CHECK(calls == 7);
  CHECK(flushes == 7);
  CHECK(m.stop_reason() == StopReason::converged);

  Measurement agreed(r);  // a multi-rank benchmark where "rank 0" says stop after 6 samples
  int n = 0;
  agreed.set_agreement([&](bool) { return n >= 6; });
  agreed.measure([&] { ++n; return 1.0; });
  CHECK(agreed.samples().size() == 3);  // 3 warm-up + 3 measured
}
