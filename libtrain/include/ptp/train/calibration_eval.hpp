#pragma once
// How much --calibrate helps on public data: within each software stack of datasets/runs.csv,
// calibrate on one run and predict the others, uncalibrated vs calibrated, per transfer kind
// (GPU count, GPU type, precision, batch, layout) and from the stack's smallest configuration to its
// largest. The uncalibrated predictions must be held out from the stack (ptp-train uses
// leave-one-stack-out aggregators), or calibration would be judged against an in-sample fit.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ptp/predict/calibration.hpp"
#include "ptp/predict/job_spec.hpp"

namespace ptp::train {

struct CalibrationEvalRow {
  std::string stack, run_id, predictor;  // predictor: who gave the uncalibrated prediction
  StepParts parts;                       // of the held-out, uncalibrated prediction
  double measured_s = 0;
  JobSpec job;                           // the configuration (transfer kinds compare these)
};

struct CalibrationEvaluation {
  nlohmann::json metrics;
  std::string markdown;
};

CalibrationEvaluation evaluate_calibration(const std::vector<CalibrationEvalRow>& rows,
                                           const CalibrationPriors& priors = {});

}  // namespace ptp::train
