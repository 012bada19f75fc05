#include "ptp/predict/learned/thin_support.hpp"

#include <cmath>

#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

double ThinSupportShares::gpu_share(const std::string& architecture) const {
  const auto it = gpu_by_architecture.find(architecture);
  return it == gpu_by_architecture.end() ? gpu_pooled : it->second;
}

double ThinSupportShares::precision_share(const std::string& precision) const {
  const auto it = by_precision.find(precision);
  return it == by_precision.end() ? precision_pooled : it->second;
}

double ThinSupportShares::factor(const std::string& architecture, int architecture_gpu_runs, const std::string& precision,
                                 int precision_runs) const {
  if (!fitted) return 1;
  return (architecture_gpu_runs < kThinSupportRuns ? gpu_share(architecture) : 1.0) *
         (precision_runs < kThinSupportRuns ? precision_share(precision) : 1.0);
}

nlohmann::json ThinSupportShares::to_json() const {
  return {{"thin_below_runs", kThinSupportRuns},
          {"gpu_by_architecture", gpu_by_architecture},
          {"gpu_pooled", gpu_pooled},
          {"precision", by_precision},
          {"precision_pooled", precision_pooled}};
}

namespace {
double share_at(const nlohmann::json& v, const std::string& path, const std::string& field) {
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0 || v.get<double>() > 1)
    throw InputError(path, 0, 0, field, "expected a share between 0 and 1");
  return v.get<double>();
}

std::map<std::string, double> shares_at(const nlohmann::json& j, const std::string& path, const std::string& field) {
  if (!j.is_object()) throw InputError(path, 0, 0, field, "expected {name: share}");
  std::map<std::string, double> out;
  for (const auto& [name, v] : j.items()) out[name] = share_at(v, path, field + "." + name);
  return out;
}
}  // namespace

ThinSupportShares ThinSupportShares::from_json(const nlohmann::json& j, const std::string& path) {
  const std::string at = "shrinkage.thin_support";
  if (!j.is_object()) throw InputError(path, 0, 0, at, "expected an object");
  // The threshold is the predictor's, not the bundle's: a bundle fitted under another refuses.
  if (!j.contains("thin_below_runs") || j.at("thin_below_runs") != kThinSupportRuns)
    throw InputError(path, 0, 0, at + ".thin_below_runs",
                     "expected " + std::to_string(kThinSupportRuns) + " (the bundle was fitted under another threshold)");
  ThinSupportShares s;
  s.fitted = true;
  s.gpu_by_architecture = shares_at(j.at("gpu_by_architecture"), path, at + ".gpu_by_architecture");
  s.gpu_pooled = share_at(j.at("gpu_pooled"), path, at + ".gpu_pooled");
  s.by_precision = shares_at(j.at("precision"), path, at + ".precision");
  s.precision_pooled = share_at(j.at("precision_pooled"), path, at + ".precision_pooled");
  return s;
}

}  // namespace ptp::predict
