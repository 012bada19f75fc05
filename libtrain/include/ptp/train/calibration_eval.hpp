#pragma once
// How much --calibrate helps on public data, within each software stack of datasets/runs.csv:
//   * leave one row out: each run predicted from the stack's other runs that differ from it in one
//     respect (the same GPU at other scales; other GPUs; other precisions), all of them as points;
//   * one run: calibrate on one run and predict each other, per transfer kind (GPU count, GPU type,
//     precision, batch, layout) and from the stack's smallest configuration to its largest.
// Each on several bases (the uncalibrated prediction the factors act on): the learned answer, which
// must be held out from the stack (ptp-train uses leave-one-stack-out aggregators) or calibration
// would be judged against an in-sample fit, the learned levels without the step correction, and
// the analytical answer.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ptp/predict/calibration.hpp"
#include "ptp/predict/job_spec.hpp"

#include "ptp/train/vocabulary.hpp"

namespace ptp::train {

struct CalibrationEvalRow {
  std::string stack, run_id, predictor;  // predictor: who gave the uncalibrated prediction
  StepParts parts;                       // of the held-out, uncalibrated prediction
  double measured_s = 0;
  JobSpec job;                           // the configuration (transfer kinds compare these)
};

// One base: its name (metrics key), what it is in words, and every run's parts on it.
struct CalibrationBase {
  std::string name, description;
  std::vector<CalibrationEvalRow> rows;
};

struct CalibrationEvaluation {
  nlohmann::json metrics;  // per base: leave_one_row_out.<group>, one_run.{overall, by_transfer_kind, ...}
  std::string markdown;
};

// The first base is the one ptp-predict calibrates (its one-run tables are written out in full).
CalibrationEvaluation evaluate_calibration(const std::vector<CalibrationBase>& bases, const CalibrationPriors& priors = {});

}  // namespace ptp::train
