#include "ptp/train/booster.hpp"

#include <xgboost/c_api.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <cmath>
#include <stdexcept>

#include "ptp/vocab/error.hpp"

#include "ptp/train/vocabulary.hpp"

namespace ptp::train {

namespace {
std::string last_error() {
  std::string e = XGBGetLastError();
  auto nl = e.find('\n');
  return nl == std::string::npos ? e : e.substr(0, nl);
}
void check(int rc, const char* what) {
  if (rc != 0) throw std::runtime_error(std::string("xgboost ") + what + ": " + last_error());
}
struct Matrix {
  DMatrixHandle h = nullptr;
  ~Matrix() {
    if (h) XGDMatrixFree(h);
  }
};
}  // namespace

Booster::Booster() = default;
Booster::~Booster() {
  if (handle_) XGBoosterFree(handle_);
}
Booster::Booster(Booster&& o) noexcept : handle_(o.handle_) { o.handle_ = nullptr; }
Booster& Booster::operator=(Booster&& o) noexcept {
  if (this != &o) {
    if (handle_) XGBoosterFree(handle_);
    handle_ = o.handle_;
    o.handle_ = nullptr;
  }
  return *this;
}

Booster Booster::train(const DenseMatrix& x, const std::vector<float>& y, const std::vector<std::string>& names,
                       const BoosterParams& p) {
  if (x.rows == 0 || x.rows != y.size()) throw std::logic_error("training matrix and labels disagree");
  Matrix m;
  check(XGDMatrixCreateFromMat(x.values.data(), x.rows, x.cols, std::nanf(""), &m.h), "DMatrix");
  check(XGDMatrixSetFloatInfo(m.h, "label", y.data(), y.size()), "labels");
  std::vector<const char*> cnames;
  for (const auto& n : names) cnames.push_back(n.c_str());
  check(XGDMatrixSetStrFeatureInfo(m.h, "feature_name", cnames.data(), cnames.size()), "feature names");
  Booster b;
  BoosterHandle h = nullptr;
  check(XGBoosterCreate(&m.h, 1, &h), "create");
  b.handle_ = h;
  auto set = [&](const char* k, const std::string& v) { check(XGBoosterSetParam(h, k, v.c_str()), k); };
  set("objective", p.objective);
  if (p.objective == "reg:pseudohubererror") set("huber_slope", std::to_string(p.huber_slope));
  set("max_depth", std::to_string(p.max_depth));
  set("eta", std::to_string(p.eta));
  set("subsample", std::to_string(p.subsample));
  set("colsample_bytree", std::to_string(p.colsample));
  set("min_child_weight", std::to_string(p.min_child_weight));
  set("lambda", std::to_string(p.lambda));
  set("seed", std::to_string(p.seed));
  set("nthread", std::to_string(p.threads));
  set("tree_method", "hist");
  set("base_score", "0");
  if (!p.monotone.empty()) {
    std::string spec = "(";
    for (std::size_t i = 0; i < names.size(); ++i) {
      auto it = p.monotone.find(names[i]);
      spec += (i ? "," : "") + std::to_string(it == p.monotone.end() ? 0 : it->second);
    }
    set("monotone_constraints", spec + ")");
  }
  check(XGBoosterSetStrFeatureInfo(h, "feature_name", cnames.data(), cnames.size()), "booster feature names");
  for (int i = 0; i < p.rounds; ++i) check(XGBoosterUpdateOneIter(h, i, m.h), "update");
  return b;
}

Booster Booster::load(const std::string& bytes, const std::string& origin) {
  Booster b;
  BoosterHandle h = nullptr;
  check(XGBoosterCreate(nullptr, 0, &h), "create");
  b.handle_ = h;
  // XGBoost 1.7 unpacks trees in an OpenMP loop sized by the calling thread's default team, whatever
  // the booster's nthread says; a team of spinning threads costs a CLI call more than it saves.
#ifdef _OPENMP
  const int team = omp_get_max_threads();
  omp_set_num_threads(1);
#endif
  const int rc = XGBoosterLoadModelFromBuffer(h, bytes.data(), bytes.size());
#ifdef _OPENMP
  omp_set_num_threads(team);
#endif
  if (rc != 0) throw InputError(origin, 0, 0, "", "not a valid XGBoost model: " + last_error());
  XGBoosterSetParam(h, "nthread", "1");
  return b;
}

std::size_t Booster::num_features() const {
  bst_ulong n = 0;
  check(XGBoosterGetNumFeature(handle_, &n), "num_feature");
  return static_cast<std::size_t>(n);
}

std::string Booster::save_ubj() const {
  bst_ulong len = 0;
  const char* raw = nullptr;
  check(XGBoosterSaveModelToBuffer(handle_, R"({"format": "ubj"})", &len, &raw), "save");
  return std::string(raw, len);
}

std::vector<float> Booster::predict(const DenseMatrix& x) const {
  if (x.rows == 0) return {};
  Matrix m;
  // One thread: prediction matrices are a few rows to a few thousand, and an OpenMP team costs
  // more to start (and spins afterwards) than it saves.
  check(XGDMatrixCreateFromMat_omp(x.values.data(), x.rows, x.cols, std::nanf(""), &m.h, 1), "DMatrix");
  bst_ulong len = 0;
  const float* out = nullptr;
  check(XGBoosterPredict(handle_, m.h, 0, 0, 0, &len, &out), "predict");
  return std::vector<float>(out, out + len);
}

float Booster::predict_one(const std::vector<float>& row) const {
  DenseMatrix x;
  x.add_row(row);
  return predict(x).front();
}

}  // namespace ptp::train
