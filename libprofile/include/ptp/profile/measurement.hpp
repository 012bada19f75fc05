#pragma once
// What a microbenchmark gets while it runs: the stopping rule, a place to put extra row cells, and
// measure(), which repeats a timed sample until the rule says stop.
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ptp/profile/row.hpp"
#include "ptp/profile/stats.hpp"
#include "ptp/vocab/point_status.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

// Thrown by a benchmark for a point it cannot run; the harness turns it into a row with this status.
struct PointFailure : std::runtime_error {
  PointFailure(PointStatus status_, const std::string& reason) : std::runtime_error(reason), status(status_) {}
  PointStatus status;
};

class Measurement {
 public:
  explicit Measurement(StopRule rule) : rule_(rule) {}

  const StopRule& rule() const { return rule_; }

  // `sample` runs the op once and returns its duration in seconds; `flush` (may be empty) runs
  // before each sample when the rule asks for cold runs and is not timed.
  void measure(const std::function<double()>& sample, const std::function<void()>& flush = {});
  // Host ops: times `op` with the steady clock.
  void measure_host(const std::function<void()>& op, const std::function<void()>& flush = {});

  // Multi-rank benchmarks make every rank agree on each stop decision (rank 0 decides).
  void set_agreement(std::function<bool(bool)> agree) { agree_ = std::move(agree); }

  void set(const std::string& column, const std::string& value) { extra_[column] = value; }
  const Row& extra() const { return extra_; }
  const std::vector<double>& samples() const { return samples_; }
  StopReason stop_reason() const { return stop_; }

 private:
  StopRule rule_;
  std::vector<double> samples_;
  Row extra_;
  StopReason stop_ = StopReason::keep_going;
  std::function<bool(bool)> agree_;
};

}  // namespace ptp::profile
