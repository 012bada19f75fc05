#pragma once
// How near a job is to the aggregator's training runs, and how much of the learned correction that
// nearness earns. The support space is a handful of aggregator features that say what the job is
// physically (scale, GPU x precision peak, step length, op mix); a training run is "near" when it
// lies within `radius` in units of each feature's spread over the training runs. A feature outside
// the trained range (beyond `margin` spreads) is listed by name: there the trees extrapolate.
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "ptp/predict/learned/thin_support.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

struct Support {
  int runs_near = 0;                 // training runs within the radius
  std::vector<std::string> outside;  // support features outside the trained range
  double nearest = 1e300;            // distance to the nearest training run (units of spread)
  // The one codebase whose runs alone trained the job's precision, when the job runs another (or
  // names none): there the precision's correction is that stack's speed, not the precision's.
  std::string precision_of_one_codebase;
  // No training run is in the job's precision: its correction is the other precisions' (the support
  // features place it by peak throughput, which another precision can share).
  bool precision_untrained = false;
  // The share of the correction few training runs on the job's GPU or in its precision leave it
  // (ThinSupportShares::factor; 1: neither is thin).
  double thin_support_factor = 1;
  bool extrapolating() const {
    return runs_near == 0 || !outside.empty() || !precision_of_one_codebase.empty() || precision_untrained;
  }
};

// precision_of_one_codebase for a job in `precision` running `codebase`, from which codebases trained
// each precision.
std::string precision_of_one_codebase(const std::map<std::string, std::set<std::string>>& codebases_by_precision,
                                      const std::string& precision, const std::string& codebase);

class SupportSpace {
 public:
  // The support features, by aggregator feature name.
  static const std::vector<std::string>& feature_names();
  // Whether rows of these aggregator features carry every support feature (the precision-blind
  // ablation's do not: it is judged as if supported).
  static bool describes(const std::vector<std::string>& aggregator_names);

  SupportSpace() = default;
  // From aggregator feature rows (full rows, in run_feature_names order) of the training runs.
  SupportSpace(const std::vector<std::vector<float>>& training_rows, const std::vector<std::string>& aggregator_names);

  Support of(const std::vector<float>& aggregator_row) const;
  bool empty() const { return points_.empty(); }

  nlohmann::json to_json() const;
  // Throws InputError naming `path` and the field on anything malformed. `points`: j's "points",
  // when the caller read them apart (LearnedBundle::load); null: read from j.
  static SupportSpace from_json(const nlohmann::json& j, const std::vector<std::string>& aggregator_names,
                                const std::string& path, const std::vector<std::vector<double>>* points = nullptr);

  double radius = 1.0, margin = 0.25;

 private:
  std::vector<std::size_t> columns_;  // support feature -> aggregator column
  std::vector<double> scale_, low_, high_;
  std::vector<std::vector<float>> points_;  // training runs, support features only, divided by scale_
  // points_ by column (feature c of point i at c * points + i): of() sums each run's distance in
  // the same order, a column at a time over all runs, which the compiler vectorises.
  std::vector<float> by_column_;
  void index_columns();
};

// A job's step in the two halves shrinkage moves apart: what sharding never changes (forward,
// backward, recompute, model-parallel communication, pipeline bubble, loss scaling, host overhead)
// and what it does (the optimizer step and the exposed data-parallel communication), each as the
// composed step has it (the learned levels answering where they can) and as the analytical model does.
// Apart, because the aggregator reads the job as if unsharded: one factor anchored on the unsharded
// twin gave a sharded job its twin's analytical answer; anchored on the job itself, forward and
// backward moved with sharding (docs/accuracy.md).
struct StepHalves {
  double invariant_composed = 0, invariant_analytical = 0;
  double sharded_composed = 0, sharded_analytical = 0;
  double composed() const { return invariant_composed + sharded_composed; }
  double analytical() const { return invariant_analytical + sharded_analytical; }
  // log(composed / analytical) of the whole step (0 when either is not positive).
  double log_composed_over_analytical() const;
};
// Multipliers on a composed step's halves.
struct HalfFactors {
  double invariant = 1, sharded = 1;
};

// How much of the learned answer a job gets, in log space between the analytical answer and the
// learned one (the composed lower levels times the typical correction), half by half (StepHalves): max_share * n / (n +
// half_support_runs) (n / (n + 0) counts as 1), and extrapolating_share of that when no training run
// is near or a support feature lies outside the trained range, times the support's thin_support_factor. Shrinking toward the analytical answer,
// not toward the composed step, makes a level that does not pay where its data ends step aside
// entirely (leave-one-codebase-out: the learned kernel times alone are worse than the analytical
// answer on 7 of 11 codebases). Fitted by ptp-train on the held-out splits, never set by hand.
//
// level_kept: how much of the typical codebase's level a job keeps. The typical correction departs
// from the analytical answer by `typical_level` on average over codebases (log; StackFit::level):
// most public stacks run slower than the analytical answer, some faster. Which of them an unknown
// stack resembles is what nothing in its job says, so its job may keep only the correction's shape
// (level_kept 0: the analytical level). Fitted on leave-one-codebase-out with the shares;
// docs/accuracy.md has the figures.
struct Shrinkage {
  double max_share = 1.0;
  double half_support_runs = 0;
  double extrapolating_share = 1.0;
  double level_kept = 1.0;
  double share(const Support& s) const;
  // As the manifest's `shrinkage` stores it (LearnedBundle::load reads it back).
  nlohmann::json to_json() const;
  // The factors on the composed halves of a job with this support, the typical correction f and the
  // typical level: each half becomes analytical^(1 - share) x composed^share x exp(share x (f -
  // (1 - level_kept) x level)), so share 1 with the level kept is the whole learned answer, share 0 the
  // analytical one, half by half. (When both halves depart alike, L = log(composed / analytical), the
  // step's log factor is share x (f + L - (1 - level_kept) x level) - L.) A half either model puts at
  // zero has no analytical end to move toward: it takes the correction alone.
  HalfFactors factors(const Support& s, double typical, const StepHalves& step, double typical_level) const;
  // log(prediction / composed step) under factors().
  double log_correction(const Support& s, double typical, const StepHalves& step, double typical_level) const;
};
// A job naming a trained codebase and one that does not: fitted apart (the first on splits that hold
// out rows of trained codebases, the second on leave-one-codebase-out). An unknown codebase's share is
// fitted per workload kind where the kind's held-out runs come from enough codebases to say how far
// their typical correction carries to another stack (decoder-only LLM stacks are each tuned their own
// way; the CNN and BERT benchmark suites less so); other kinds take the pooled `unknown`.
struct CorrectionShrinkage {
  Shrinkage known, unknown;
  std::map<std::string, Shrinkage> unknown_by_kind;
  ThinSupportShares thin;
  const Shrinkage& of_unknown(const std::string& workload_kind) const {
    const auto it = unknown_by_kind.find(workload_kind);
    return it == unknown_by_kind.end() ? unknown : it->second;
  }
};

}  // namespace ptp::predict
