#pragma once
// Chooses who answers: the learned bundle when one is loaded and the job is inside what it was
// trained on, the analytical model otherwise (with a warning saying why). A Predictor is immutable
// once built (catalogs, constants, bundle) and shared by reference by every thread that predicts;
// what a caller keeps between its predictions (the learned levels' answers) is its own LearnedMemo,
// as XGBoost's PredictBatch(..., model const&, ...) keeps its state outside the model.
#include <memory>
#include <string>

#include "ptp/predict/analytical.hpp"
#include "ptp/predict/learned/learned_memo.hpp"
#include "ptp/predict/prediction.hpp"
#include "ptp/predict/resolved_job.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

class LearnedBundle;  // learned/bundle.hpp

class Predictor {
 public:
  Predictor(const std::string& config_dir, const std::string& bundle_dir, bool use_bundle);
  Predictor(const Predictor&) = delete;
  Predictor& operator=(const Predictor&) = delete;
  ~Predictor();
  // `memo`: the caller's (one per thread), reused across its predictions (a sweep, a search share).
  Prediction predict(const JobSpec& job, LearnedMemo& memo) const;
  Prediction predict(const ResolvedJob& job, LearnedMemo& memo) const;  // a job resolved against catalogs()
  // One prediction with a fresh memo.
  Prediction predict(const JobSpec& job) const;
  Prediction predict(const ResolvedJob& job) const;
  const AnalyticalConstants& constants() const { return constants_; }
  const Catalogs& catalogs() const { return catalogs_; }
  bool has_bundle() const { return bundle_ != nullptr; }

 private:
  Catalogs catalogs_;
  AnalyticalConstants constants_;
  std::unique_ptr<LearnedBundle> bundle_;
};

// models/default next to configs/ (the shipped bundle), or "" when absent.
std::string default_bundle_dir(const std::string& config_dir);

}  // namespace ptp::predict
