#pragma once
// Chooses who answers: the learned bundle when one is loaded and the job is inside what it was
// trained on, the analytical model otherwise (with a warning saying why).
#include <memory>
#include <string>

#include "ptp/predict/analytical.hpp"
#include "ptp/predict/prediction.hpp"
#include "ptp/predict/resolved_job.hpp"

namespace ptp {

class LearnedBundle;  // learned/bundle.hpp

class Predictor {
 public:
  Predictor(std::string config_dir, std::string bundle_dir, bool use_bundle);
  ~Predictor();
  Prediction predict(const JobSpec& job) const;
  Prediction predict(const ResolvedJob& job) const;  // a job already resolved against catalogs()
  const AnalyticalConstants& constants() const { return constants_; }
  const Catalogs& catalogs() const { return catalogs_; }
  bool has_bundle() const { return bundle_ != nullptr; }
  // What it was built from: a search thread builds its own (the learned levels cache per instance).
  const std::string& config_dir() const { return config_dir_; }
  const std::string& bundle_dir() const { return bundle_dir_; }

 private:
  std::string config_dir_, bundle_dir_;
  Catalogs catalogs_;
  AnalyticalConstants constants_;
  std::unique_ptr<LearnedBundle> bundle_;
};

// models/default next to configs/ (the shipped bundle), or "" when absent.
std::string default_bundle_dir(const std::string& config_dir);

}  // namespace ptp
