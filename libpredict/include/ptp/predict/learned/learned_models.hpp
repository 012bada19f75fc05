#pragma once
// The compute and communication levels of the learned hierarchy, plugged into the analytical step
// composition by compose_learned. Both predict log(measured / bound).
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ptp/predict/analytical.hpp"
#include "ptp/predict/learned/features.hpp"
#include "ptp/predict/learned/learned_memo.hpp"
#include "ptp/predict/learned/tree_ensemble.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

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

// The compute level: op times from kernel timings. Immutable once built: the answers it gives are
// kept in the caller's LearnedMemo (one per thread), so one model serves every thread.
class LearnedOpModel {
 public:
  // measured: "<gpu id>|<math>" pairs (math "memory" for memory-bound classes) with kernel rows in the
  // training data. There the learned time stands alone; elsewhere it is an extrapolation to a GPU
  // or math mode the kernels never ran on, and is shrunk toward the analytical time.
  LearnedOpModel(TreeEnsemble trees, std::set<std::string> maths, std::set<std::string> measured = {});
  // Seconds for one launch of `op` (forward when !backward), or nullopt where the level declines
  // (the analytical `analytical_s` answers there).
  std::optional<double> seconds(const Op& op, const ResolvedJob& job, bool backward, double analytical_s,
                                LearnedMemo& memo) const;
  // The GPU catalog the measured pairs' GPUs are looked up in. With it, an op on a GPU without kernel
  // rows for its math is never slower than the trees' answer for a measured GPU of its architecture
  // (same SM version and default power cap, nearest peak and bandwidth) at this GPU's own analytical
  // rates: the same kernels at the same clocks, so a GPU faster than its sibling stays faster. Below
  // that bound the trees answer on the GPU's own features, shrunk toward the analytical time as
  // before. Trainer and predictor both attach it.
  void attach_gpus(const GpuCatalog* gpus) { gpus_ = gpus; }
  // The measured GPU whose correction `gpu` borrows for launches of `shape`'s kind; null: none.
  const GpuSpec* measured_sibling(const GpuSpec& gpu, const OpShape& shape) const;
  const std::set<std::string>& maths() const { return maths_; }
  const std::set<std::string>& measured() const { return measured_; }
  const TreeEnsemble& trees() const { return trees_; }

 private:
  TreeEnsemble trees_;
  // The launches the compute model answers for one op, at its trained math (false: it declines).
  bool launches_of(const Op& op, const ResolvedJob& job, bool backward, std::vector<OpShape>& launches) const;
  std::set<std::string> maths_;  // math modes seen in training; others are declined
  std::set<std::string> measured_;
  const GpuCatalog* gpus_ = nullptr;
  std::uint64_t id_;  // which memo entries are this model's answers (copies share it: same trees)
};

// How far the communication level's training rows reach. A tree answers a 512-node all-reduce
// with the leaf of the largest group it saw (published rows stop at 16 ranks on 2 nodes), so past
// the reach its correction is weighted by reach / distance in log space toward the analytical
// bucket time: whole inside, half at twice as many nodes, nearly none at thousands of GPUs.
// Zero fields: no reach recorded (bundles before it), the correction applies everywhere.
struct CollectiveReach {
  int max_ranks = 0, max_nodes = 0;
  double weight(int ranks, int nodes) const;
};

// The communication level: data-parallel all-reduce times. Immutable, like LearnedOpModel.
class LearnedCollectiveModel {
 public:
  explicit LearnedCollectiveModel(TreeEnsemble trees, CollectiveReach reach = {});
  // analytical_s: the analytical time of the same all-reduce, which answers past the reach.
  double allreduce_seconds(double bytes, const ResolvedJob& job, double analytical_s, LearnedMemo& memo) const;
  // The share of the learned correction (log space) a job's data-parallel all-reduce gets.
  double weight(const ResolvedJob& job) const;
  const TreeEnsemble& trees() const { return trees_; }
  const CollectiveReach& reach() const { return reach_; }

 private:
  TreeEnsemble trees_;
  CollectiveReach reach_;
  std::uint64_t id_;
};

// The learned lower levels one composition uses; a null level leaves its answers analytical.
struct LearnedLevels {
  const LearnedOpModel* compute = nullptr;
  const LearnedCollectiveModel* communication = nullptr;
};

// Which aggregator row compose_learned builds beside the step (features.hpp: aggregator_features).
enum class AggregatorRow { none, full, blind };
struct LearnedComposition {
  Prediction step;                   // predict_analytical with the levels answering where they can
  std::vector<float> aggregator_row;  // empty for AggregatorRow::none
  StepHalves halves;  // AggregatorRowValues', zero for AggregatorRow::none
};
// The one way into the learned levels: composes `job` on `base` with `levels` answering op and
// all-reduce times, their answers kept in the caller's `memo` (any number of jobs, one thread).
// ptp-predict (LearnedBundle::predict) and ptp-train (the aggregator's rows) both compose here.
LearnedComposition compose_learned(const ResolvedJob& job, const AnalyticalConstants& base, const LearnedLevels& levels,
                                   LearnedMemo& memo, AggregatorRow row = AggregatorRow::none);

}  // namespace ptp::predict
