#pragma once
// The compute and communication levels of the learned hierarchy, plugged into the analytical step
// composition through OpTimeModel / CollectiveTimeModel. Both predict log(measured / bound).
#include <set>
#include <string>
#include <unordered_map>

#include "ptp/predict/analytical.hpp"
#include "ptp/predict/learned/features.hpp"
#include "ptp/predict/learned/tree_ensemble.hpp"

namespace ptp {

// Which workload ops the compute model answers, as the OpShape it was trained on (nullopt: decline).
bool op_shape_of(const Op& op, const ResolvedJob& job, bool backward, std::vector<OpShape>& launches);

// Weight of the compute model's op time against the analytical op time (log space) in what the
// compute level answers. Kernel microbenchmarks (NeuSight, vidur) run without the framework overheads
// the analytical constants were calibrated to absorb, and the model extrapolates to most run GPUs.
// Screened on seeds 7, 1, 2 (scripts/cv_seed_spread.py, aggregator with its level features, roofline
// base): weight 1 / 0.5 / 0 gave leave-one-model-out 15.59 / 14.90 / 14.81 %, leave-one-GPU-out
// 12.07 / 11.85 / 11.16 % (0 is the analytical op time, i.e. no compute level); trusting the learned
// time only on GPU x math pairs with kernel rows (analytical elsewhere) gave 14.88 / 12.47 %.
inline constexpr double kLearnedOpWeight = 0.5;
// Key of a GPU x math pair in LearnedOpModel's measured set.
std::string measured_key(const std::string& gpu_id, const OpShape& shape);

class LearnedOpModel : public OpTimeModel {
 public:
  // measured: "<gpu id>|<math>" pairs (math "memory" for memory-bound classes) with kernel rows in the
  // training data. There the learned time stands alone; elsewhere it is an extrapolation to a GPU
  // or math mode the kernels never ran on, and is shrunk toward the analytical time.
  LearnedOpModel(TreeEnsemble trees, std::set<std::string> maths, std::set<std::string> measured = {})
      : trees_(std::move(trees)), maths_(std::move(maths)), measured_(std::move(measured)) {}
  // Call before composing each job: starts the job's memo of launch answers.
  void prepare(const ResolvedJob& job) const;
  double seconds(const Op& op, const ResolvedJob& job, bool backward, double analytical_s) const override;
  const std::set<std::string>& maths() const { return maths_; }
  const std::set<std::string>& measured() const { return measured_; }
  const TreeEnsemble& trees() const { return trees_; }

 private:
  TreeEnsemble trees_;
  // The launches the compute model answers for one op, at its trained math (false: it declines).
  bool launches_of(const Op& op, const ResolvedJob& job, bool backward, std::vector<OpShape>& launches) const;
  std::set<std::string> maths_;  // math modes seen in training; others are declined
  std::set<std::string> measured_;
  mutable std::unordered_map<std::string, float> cache_;  // feature row bytes -> predicted log ratio
  // One job's launches by shape (no strings to build, no features to compute on a hit).
  struct ShapeKey {
    const GpuSpec* gpu;
    double shape[6];  // m, n, k, batch, flops, bytes
    char op_class[16], math[8];
    bool valid;  // names fit the arrays (always, for the classes and maths op_shape_of makes)
    bool operator==(const ShapeKey& o) const;
  };
  struct ShapeKeyHash {
    std::size_t operator()(const ShapeKey& k) const;
  };
  struct LaunchAnswer {
    double seconds = 0;  // learned launch time
    bool measured = false;
  };
  static ShapeKey shape_key(const OpShape& s, const GpuSpec* gpu);
  mutable std::unordered_map<ShapeKey, LaunchAnswer, ShapeKeyHash> launch_memo_;
};

class LearnedCollectiveModel : public CollectiveTimeModel {
 public:
  explicit LearnedCollectiveModel(TreeEnsemble trees) : trees_(std::move(trees)) {}
  double allreduce_seconds(double bytes, const ResolvedJob& job, double analytical_s) const override;
  const TreeEnsemble& trees() const { return trees_; }

 private:
  TreeEnsemble trees_;
  mutable std::unordered_map<std::string, float> cache_;
};

}  // namespace ptp
