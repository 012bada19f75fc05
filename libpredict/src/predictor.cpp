#include "ptp/predict/predictor.hpp"

#include <filesystem>

#include "ptp/predict/energy.hpp"
#include "ptp/predict/learned/bundle.hpp"


namespace ptp {

std::string default_bundle_dir(const std::string& config_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir = fs::path(config_dir).parent_path() / "models" / "default";
  return fs::is_regular_file(dir / "manifest.json", ec) ? dir.string() : std::string();
}

Predictor::Predictor(std::string config_dir, std::string bundle_dir, bool use_bundle)
    : config_dir_(config_dir), catalogs_(config_dir) {
  if (use_bundle && !bundle_dir.empty()) {
    bundle_ = std::make_unique<LearnedBundle>(LearnedBundle::load(bundle_dir));
    bundle_dir_ = bundle_dir;
  }
}

Predictor::~Predictor() = default;

Prediction Predictor::predict(const JobSpec& job) const { return predict(resolve_job(job, catalogs_)); }

Prediction Predictor::predict(const ResolvedJob& resolved) const {
  Prediction p = bundle_ ? bundle_->predict(resolved, constants_) : predict_analytical(resolved, constants_);
  apply_power_model(resolved, p);
  return p;
}

}  // namespace ptp
