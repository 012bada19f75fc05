#pragma once
// The power cap's clock model (energy.hpp CapClockModel) refitted on the capped rows of the
// GPU-bound Zeus jobs that energy_evaluation.cpp collects: in sample, then with each GPU left out.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ptp/predict/prediction.hpp"
#include "ptp/predict/resolved_job.hpp"

#include "ptp/eval/vocabulary.hpp"

namespace ptp::eval::detail {

// A capped row of a GPU-bound Zeus job, kept to refit the cap's clock model (cap_clock_fit).
struct CapRow {
  ResolvedJob capped_job;
  Prediction uncapped;
  std::string gpu;
  double time_ratio, energy_ratio;  // measured, relative to the configuration's uncapped row
};

// The markdown section of the fit, and its summary (fitted constants, each GPU held out).
std::string cap_clock_fit(const std::vector<CapRow>& rows, nlohmann::json& summary);

}  // namespace ptp::eval::detail
