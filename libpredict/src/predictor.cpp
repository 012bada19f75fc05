#include "ptp/predict/predictor.hpp"

#include <filesystem>

#include "ptp/predict/energy.hpp"
#include "ptp/predict/learned/bundle.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

std::string default_bundle_dir(const std::string& config_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir = fs::path(config_dir).parent_path() / "models" / "default";
  return fs::is_regular_file(dir / "manifest.json", ec) ? dir.string() : std::string();
}

Predictor::Predictor(const std::string& config_dir, const std::string& bundle_dir, bool use_bundle)
    : catalogs_(config_dir) {
  if (use_bundle && !bundle_dir.empty()) bundle_ = std::make_unique<LearnedBundle>(LearnedBundle::load(bundle_dir));
  if (bundle_ && bundle_->compute) bundle_->compute->attach_gpus(&catalogs_.gpus());
}

Predictor::~Predictor() = default;

Prediction Predictor::predict(const JobSpec& job) const {
  LearnedMemo memo;
  return predict(job, memo);
}

Prediction Predictor::predict(const ResolvedJob& resolved) const {
  LearnedMemo memo;
  return predict(resolved, memo);
}

Prediction Predictor::predict(const JobSpec& job, LearnedMemo& memo) const {
  return predict(resolve_job(job, catalogs_), memo);
}

Prediction Predictor::predict(const ResolvedJob& resolved, LearnedMemo& memo) const {
  Prediction p = bundle_ ? bundle_->predict(resolved, constants_, memo) : predict_analytical(resolved, constants_);
  apply_power_model(resolved, p);
  return p;
}

}  // namespace ptp::predict
