#pragma once
// The profile command: resolve the backend and target GPU, expand the sweep, then either print the
// plan or run it (resume, budget, signals, progress, one row per point).
#include <functional>
#include <string>

#include "ptp/vocab/exit_codes.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

struct ProfileOptions {
  std::string sweep_path;
  // Generated sweeps (ptp-profile --from-job): when set, called with true for the host backend and
  // false for cuda once the backend is known; returns sweep YAML text, and sweep_path only names it.
  std::function<std::string(bool host)> sweep_yaml;
  // Leave out the points the backend refuses whatever the machine (Work::unsupported, e.g. bf16 on
  // the host), counted by reason in the plan and the log (--from-job: those are no work here).
  bool only_runnable = false;
  std::string backend;  // "", "host" or "cuda"; "" picks cuda when a device is visible
  std::string gpu;      // catalog id: the planning target, or the name used for a detected device
  int device = 0;       // CUDA device ordinal
  std::string out;      // output stem: <stem>.ops.csv and <stem>.collectives.csv
  bool resume = false;
  bool plan = false;
  double budget_s = 0;  // 0: no budget
  bool tty = false;     // progress bar instead of log lines
};

// Returns the process exit code (ptp/vocab/exit_codes.hpp): 0; kExitNoPointSucceeded when points ran
// and none was ok; or kExitSignalBase + signal when SIGINT/SIGTERM stopped the sweep early.
// Throws InputError for bad input before anything is written.
int run_profile(const ProfileOptions& opt);

// Output file of a table for an --out stem ("results" or "results.csv" -> "results.ops.csv").
std::string output_path(const std::string& stem, const char* table);

}  // namespace ptp::profile
