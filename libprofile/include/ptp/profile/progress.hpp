#pragma once
// Progress reporting: a one-line bar with ETA redrawn in place on a terminal, plain log lines (one per
// point) when stderr is a file or pipe, so CI logs and Slurm output stay readable.
#include <chrono>
#include <cstddef>
#include <string>

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

class Progress {
 public:
  Progress(std::size_t total, double estimated_total_s, bool tty);
  // Called after each point; `estimated_s` is the planned time of the points done so far.
  void point_done(const std::string& id, const std::string& status, double time_s, double estimated_done_s);
  void note(const std::string& message);  // a log line that does not break the bar
  void finish();

 private:
  std::size_t total_, done_ = 0;
  double estimated_total_s_;
  bool tty_;
  std::chrono::steady_clock::time_point start_;
  double eta_s(double estimated_done_s) const;
};

bool stderr_is_tty();

}  // namespace ptp::profile
