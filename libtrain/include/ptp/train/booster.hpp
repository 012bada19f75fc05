#pragma once
// RAII wrapper over the XGBoost C API, for training (target ptp::train): ptp-predict answers from the
// flattened trees (tree_ensemble.hpp) and does not link XGBoost. XGBoost errors (multi-line, with
// stack traces) become one-line exceptions; nothing else in ptp touches the C API.
#include <map>
#include <string>
#include <vector>

#include "ptp/predict/learned/dense_matrix.hpp"

#include "ptp/train/vocabulary.hpp"

namespace ptp::train {


struct BoosterParams {
  int rounds = 300;
  int max_depth = 5;
  double eta = 0.05;
  double subsample = 0.8;
  double colsample = 0.8;
  double min_child_weight = 2;
  double lambda = 1.0;
  int seed = 7;
  int threads = 2;
  std::string objective = "reg:pseudohubererror";
  double huber_slope = 0.3;
  std::map<std::string, int> monotone;  // feature name -> +1/-1
};

class Booster {
 public:
  Booster();
  ~Booster();
  Booster(Booster&& other) noexcept;
  Booster& operator=(Booster&& other) noexcept;
  Booster(const Booster&) = delete;
  Booster& operator=(const Booster&) = delete;

  static Booster train(const DenseMatrix& x, const std::vector<float>& y, const std::vector<std::string>& names,
                       const BoosterParams& params);
  // Universal Binary JSON: loads several times faster than text JSON, same round-trip guarantees.
  static Booster load(const std::string& bytes, const std::string& origin);
  std::string save_ubj() const;
  std::size_t num_features() const;
  std::vector<float> predict(const DenseMatrix& x) const;
  float predict_one(const std::vector<float>& row) const;
  bool empty() const { return handle_ == nullptr; }

 private:
  void* handle_ = nullptr;
};

}  // namespace ptp::train
