#pragma once
// The steady-state rule of training_log.hpp: which logged steps are warm-up, and the median and
// spread of the rest.
#include <string>
#include <vector>

#include "ptp/predict/training_log.hpp"
#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::training_log {

struct SteadyStats {
  double step_s = 0, spread = 0;
  int logged = 0, dropped = 0, used = 0;
};


// `seconds` in log order. InputError "PATH: N steps logged<where>, at least 4 needed ..." when too
// few; `where` says which part of the log they came from (" in the last run (from line 9)").
SteadyStats steady_state(const std::vector<double>& seconds, const std::string& path, const std::string& where);

}  // namespace ptp::predict::training_log
