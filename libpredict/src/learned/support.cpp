#include "ptp/predict/learned/support.hpp"

#include <algorithm>
#include <cmath>

#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

const std::vector<std::string>& SupportSpace::feature_names() {
  static const std::vector<std::string> names = {
      "log2_num_gpus",     "log_prec_peak",           "log_gpu_bandwidth",       "log_busy_step",
      "gemm_flop_fraction", "attention_flop_fraction", "conv_flop_fraction", "embedding_param_fraction",
      "log_busy_samples_per_gpu_s", "compute_busy_share", "optimizer_busy_share"};
  return names;
}

bool SupportSpace::describes(const std::vector<std::string>& names) {
  for (const auto& f : feature_names())
    if (std::find(names.begin(), names.end(), f) == names.end()) return false;
  return true;
}

namespace {
std::vector<std::size_t> columns_of(const std::vector<std::string>& aggregator_names, const std::string& where) {
  std::vector<std::size_t> cols;
  for (const auto& f : SupportSpace::feature_names()) {
    const auto it = std::find(aggregator_names.begin(), aggregator_names.end(), f);
    if (it == aggregator_names.end()) throw InputError(where, 0, 0, "support", "aggregator has no feature '" + f + "'");
    cols.push_back(static_cast<std::size_t>(it - aggregator_names.begin()));
  }
  return cols;
}
}  // namespace

SupportSpace::SupportSpace(const std::vector<std::vector<float>>& rows, const std::vector<std::string>& names)
    : columns_(columns_of(names, "support")) {
  const std::size_t d = columns_.size();
  scale_.assign(d, 0);
  low_.assign(d, 1e300);
  high_.assign(d, -1e300);
  std::vector<double> mean(d, 0);
  for (const auto& r : rows)
    for (std::size_t c = 0; c < d; ++c) {
      const double v = r[columns_[c]];
      mean[c] += v / static_cast<double>(rows.size());
      low_[c] = std::min(low_[c], v);
      high_[c] = std::max(high_[c], v);
    }
  for (const auto& r : rows)
    for (std::size_t c = 0; c < d; ++c) scale_[c] += std::pow(r[columns_[c]] - mean[c], 2) / static_cast<double>(rows.size());
  // A feature constant over the training runs (e.g. one GPU in a test fixture) gets unit spread.
  for (auto& s : scale_) s = s > 1e-12 ? std::sqrt(s) : 1.0;
  for (const auto& r : rows) {
    std::vector<float> p(d);
    for (std::size_t c = 0; c < d; ++c) p[c] = static_cast<float>(r[columns_[c]] / scale_[c]);
    points_.push_back(std::move(p));
  }
  index_columns();
}

void SupportSpace::index_columns() {
  const std::size_t n = points_.size(), d = columns_.size();
  by_column_.assign(n * d, 0.f);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < d; ++c) by_column_[c * n + i] = points_[i][c];
}

Support SupportSpace::of(const std::vector<float>& row) const {
  Support s;
  const std::size_t d = columns_.size();
  std::vector<double> q(d);
  for (std::size_t c = 0; c < d; ++c) {
    const double v = row[columns_[c]];
    q[c] = v / scale_[c];
    if (v < low_[c] - margin * scale_[c] || v > high_[c] + margin * scale_[c]) s.outside.push_back(feature_names()[c]);
  }
  const double r2 = radius * radius;
  double nearest2 = 1e300;
  const std::size_t n = points_.size();
  thread_local std::vector<double> dist2;
  dist2.assign(n, 0.0);
  for (std::size_t c = 0; c < d; ++c) {
    const float* column = by_column_.data() + c * n;
    const double qc = q[c];
    for (std::size_t i = 0; i < n; ++i) dist2[i] += (qc - column[i]) * (qc - column[i]);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (dist2[i] <= r2) ++s.runs_near;
    nearest2 = std::min(nearest2, dist2[i]);
  }
  s.nearest = std::sqrt(nearest2);
  return s;
}

nlohmann::json SupportSpace::to_json() const {
  nlohmann::json pts = nlohmann::json::array();
  for (const auto& p : points_) pts.push_back(p);
  return {{"features", feature_names()}, {"radius", radius}, {"margin", margin}, {"scale", scale_},
          {"low", low_},                 {"high", high_},    {"points", pts}};
}

SupportSpace SupportSpace::from_json(const nlohmann::json& j, const std::vector<std::string>& names, const std::string& path,
                                     const std::vector<std::vector<double>>* points) {
  SupportSpace s;
  auto fail = [&](const std::string& field, const std::string& what) { throw InputError(path, 0, 0, "support." + field, what); };
  if (!j.is_object()) fail("", "expected an object");
  if (j.value("features", nlohmann::json()) != nlohmann::json(feature_names()))
    fail("features", "support features differ from this ptp build; retrain the bundle");
  s.columns_ = columns_of(names, path);
  const std::size_t d = s.columns_.size();
  auto vec = [&](const char* key) {
    const auto& v = j.at(key);
    if (!v.is_array() || v.size() != d) fail(key, "expected " + std::to_string(d) + " numbers");
    std::vector<double> out;
    for (const auto& x : v) {
      if (!x.is_number() || !std::isfinite(x.get<double>())) fail(key, "expected finite numbers");
      out.push_back(x.get<double>());
    }
    return out;
  };
  s.scale_ = vec("scale");
  s.low_ = vec("low");
  s.high_ = vec("high");
  for (double v : s.scale_)
    if (!(v > 0)) fail("scale", "expected positive spreads");
  s.radius = j.at("radius").get<double>();
  s.margin = j.at("margin").get<double>();
  if (!(s.radius > 0) || !(s.margin >= 0)) fail("radius", "expected a positive radius and a non-negative margin");
  // Within float range: a point is read as float, and a larger value would not convert.
  const std::string count = "expected " + std::to_string(d) + " numbers per point", range = "expected finite numbers within +-1e30";
  const auto& pts = j.at("points");
  if (points) {  // the same checks on the points read apart
    if (points->empty()) fail("points", "expected the training runs' support points");
    s.points_.reserve(points->size());
    for (const auto& p : *points) {
      if (p.size() != d) fail("points", count);
      std::vector<float> v;
      v.reserve(d);
      for (double x : p) {
        if (!(std::fabs(x) <= 1e30)) fail("points", range);
        v.push_back(static_cast<float>(x));
      }
      s.points_.push_back(std::move(v));
    }
    s.index_columns();
    return s;
  }
  if (!pts.is_array() || pts.empty()) fail("points", "expected the training runs' support points");
  for (const auto& p : pts) {
    if (!p.is_array() || p.size() != d) fail("points", count);
    std::vector<float> v;
    for (const auto& x : p) {
      if (!x.is_number() || !(std::fabs(x.get<double>()) <= 1e30)) fail("points", range);
      v.push_back(x.get<float>());
    }
    s.points_.push_back(std::move(v));
  }
  s.index_columns();
  return s;
}

std::string precision_of_one_codebase(const std::map<std::string, std::set<std::string>>& codebases_by_precision,
                                      const std::string& precision, const std::string& codebase) {
  const auto it = codebases_by_precision.find(precision);
  if (it == codebases_by_precision.end() || it->second.size() != 1 || it->second.count(codebase)) return "";
  return *it->second.begin();
}

double StepHalves::log_composed_over_analytical() const {
  return composed() > 0 && analytical() > 0 ? std::log(composed() / analytical()) : 0.0;
}

namespace {
double toward_analytical(double composed, double analytical, double share) {
  return composed > 0 && analytical > 0 ? std::pow(analytical / composed, 1 - share) : 1.0;
}
}  // namespace

HalfFactors Shrinkage::factors(const Support& s, double typical, const StepHalves& step, double typical_level) const {
  const double w = share(s);
  const double correction = std::exp(w * (typical - (1 - level_kept) * typical_level));
  return {toward_analytical(step.invariant_composed, step.invariant_analytical, w) * correction,
          toward_analytical(step.sharded_composed, step.sharded_analytical, w) * correction};
}

double Shrinkage::log_correction(const Support& s, double typical, const StepHalves& step, double typical_level) const {
  const HalfFactors k = factors(s, typical, step, typical_level);
  const double composed = step.composed();
  if (composed <= 0) return std::log(k.invariant);
  return std::log((step.invariant_composed * k.invariant + step.sharded_composed * k.sharded) / composed);
}

nlohmann::json Shrinkage::to_json() const {
  return {{"max_share", max_share}, {"half_support_runs", half_support_runs}, {"extrapolating_share", extrapolating_share},
          {"level_kept", level_kept}};
}

double Shrinkage::share(const Support& s) const {
  const double n = s.runs_near;
  const double by_count = half_support_runs > 0 ? n / (n + half_support_runs) : 1.0;
  return max_share * by_count * (s.extrapolating() ? extrapolating_share : 1.0) * s.thin_support_factor;
}

}  // namespace ptp::predict
