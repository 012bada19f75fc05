#pragma once
// ptp-train as a library call: fit the compute, communication and aggregator levels on the dataset
// tables, cross-validate (k-fold, leave-one-model-out, leave-one-GPU-out, leave-one-scale-out) with
// the precision-blind ablation beside it, calibrate the interval, write bundle + report.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "ptp/predict/learned/dense_matrix.hpp"

#include "ptp/train/vocabulary.hpp"

namespace ptp::train {

struct TrainOptions {
  std::string data_dir = "datasets";
  std::string out_dir = "models/default";
  std::string config_dir;
  bool blind = false;      // train the shipped aggregator without precision information (ablation bundle)
  int seed = 7;
  int threads = 2;
  bool cross_validate = true;
  // Optional: write the aggregator's rows (identity, measured, analytical and composed step, the
  // features, the target) as CSV, for analysing the correction outside ptp-train.
  std::string export_rows;
  std::function<void(const std::string&)> log = [](const std::string&) {};
  // Optional: each level's final training rows ("compute", "communication", "aggregator"), as the
  // shipped booster was fit on them (tests compare the flattened trees with XGBoost there).
  std::function<void(const std::string& level, const DenseMatrix& rows)> on_training_rows;
};

struct TrainResult {
  nlohmann::json metrics;  // also in the bundle manifest
  std::string report_markdown;
};

TrainResult train_bundle(const TrainOptions& options);

}  // namespace ptp::train
