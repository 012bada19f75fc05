#pragma once
// The energy estimate evaluated on the published power rows (datasets/power.csv): markdown tables
// per source and GPU (average board power, energy per step, the power-cap what-if), each source
// also predicted with the constants fitted without it, and a summary for the bundle's metrics
// (energy_evaluation.cpp says what is compared with what).
#include <nlohmann/json.hpp>
#include <string>

#include "ptp/eval/vocabulary.hpp"

namespace ptp::eval {

struct EnergyEvaluationOptions {
  std::string power_csv;
  std::string config_dir;
  std::string bundle_dir;  // empty: the analytical step model
};
struct EnergyEvaluation {
  std::string markdown;
  // Per table: rows, mape, median signed error; leave_one_source_out: the same for the held-out
  // source, with the constant refitted without it.
  nlohmann::json summary;
};
EnergyEvaluation evaluate_energy(const EnergyEvaluationOptions& o);

}  // namespace ptp::eval
