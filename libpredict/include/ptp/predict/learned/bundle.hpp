#pragma once
// A trained model bundle: a directory with manifest.json (schema version, feature names, training-data
// hashes, metrics, interval calibration, versions, the SHA-256 of every file) and CHECKSUM (the
// SHA-256 of manifest.json). Each level is there twice: `files.<level>` is XGBoost's booster (UBJ,
// the training reference) and `trees.<level>` its flattened form (tree_ensemble.hpp), which is all
// ptp-predict reads. Loading verifies the manifest and every file it reads and refuses anything that
// does not match, so a corrupted or foreign bundle never answers. A bundle without `trees` (written
// before they existed) is refused with one line asking to retrain: ptp-predict has no XGBoost to
// fall back on.
#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "ptp/predict/analytical.hpp"
#include "ptp/predict/learned/learned_models.hpp"
#include "ptp/predict/learned/support.hpp"
#include "ptp/predict/learned/tree_ensemble.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

inline constexpr int kBundleSchemaVersion = 3;
// What a job has that no training run of the bundle had, the most telling first: a precision, a GPU
// or a model (leave-one-precision-, GPU- and model-out measure how far each moves the error).
enum class Novelty { none, model, gpu, precision };
inline Novelty novelty_of(bool precision_trained, bool gpu_trained, bool model_trained) {
  return !precision_trained ? Novelty::precision : !gpu_trained ? Novelty::gpu : !model_trained ? Novelty::model : Novelty::none;
}
// As predictor.support.new says it ("" for none).
inline const char* novelty_name(Novelty n) {
  switch (n) {
    case Novelty::none: return "";
    case Novelty::model: return "model";
    case Novelty::gpu: return "gpu";
    case Novelty::precision: return "precision";
  }
  return "";
}
// The bands a prediction can get (manifest `interval`): by whether the job names a codebase the
// bundle has runs of; then, for a named codebase, by what the job brings that no training run had;
// then by its support (support.hpp): extrapolating, or how far the nearest training run lies (a job
// next to a trained configuration is predicted more tightly than one whose nearest neighbour is
// another model or precision).
inline constexpr const char* kBandNames[] = {
    "known_codebase.extrapolating",    "known_codebase.new_precision",     "known_codebase.new_gpu",
    "known_codebase.new_model",        "known_codebase.nearest_0_0.02",    "known_codebase.nearest_0.02_0.1",
    "known_codebase.nearest_0.1_0.3",  "known_codebase.nearest_0.3_plus",  "unknown_codebase.extrapolating",
    "unknown_codebase.nearest_0_0.02", "unknown_codebase.nearest_0.02_0.1", "unknown_codebase.nearest_0.1_0.3",
    "unknown_codebase.nearest_0.3_plus"};
// A GPU architecture or precision with thin support (thin_support.hpp) takes the extrapolating band:
// its correction is the one or two sources' that published it, whatever their runs' distance.
inline const char* band_name(bool codebase_known, Novelty novelty, const Support& s) {
  const int nearest_bin = s.nearest < 0.02 ? 0 : s.nearest < 0.1 ? 1 : s.nearest < 0.3 ? 2 : 3;
  const bool far = s.extrapolating() || s.thin_support_factor < 1;
  if (!codebase_known) return kBandNames[far ? 8 : 9 + nearest_bin];
  // A precision no training run had extrapolates too (Support::precision_untrained), but its band is
  // the one measured on held-out precisions.
  if (novelty == Novelty::precision) return kBandNames[1];
  if (far) return kBandNames[0];
  switch (novelty) {
    case Novelty::precision: break;
    case Novelty::gpu: return kBandNames[2];
    case Novelty::model: return kBandNames[3];
    case Novelty::none: break;
  }
  return kBandNames[4 + nearest_bin];
}

class LearnedBundle {
 public:
  static LearnedBundle load(const std::string& dir);
  // Bundles this process has loaded so far (a search must add none: its threads share one).
  static std::size_t loads();

  // Composes the job with the learned compute/communication models, then applies the aggregator.
  // Falls back to `analytical` (with a warning) when the job is outside what the bundle learned.
  // The bundle is immutable once loaded: `memo` (the caller's, one per thread) keeps what the
  // levels answered across the caller's predictions; without one, each call starts afresh.
  Prediction predict(const ResolvedJob& job, const AnalyticalConstants& base, LearnedMemo& memo) const;
  // support.of(row), from the memo's recent answers where it keeps them.
  Support support_of(const std::vector<float>& row, LearnedMemo& memo) const;
  Prediction predict(const ResolvedJob& job, const AnalyticalConstants& base) const;
  const std::string& dir() const { return dir_; }
  // Without "metrics" and support.points (read manifest.json for those).
  const nlohmann::json& manifest() const { return manifest_; }

  // Pieces used by the trainer as well.
  static std::string describe_domain_gap(const nlohmann::json& manifest, const ResolvedJob& job);
  // What the job has that no training run had (manifest `domain`), for its band.
  Novelty novelty_of(const ResolvedJob& job) const;
  // The manifest's `domain` lists, read once at load: novelty_of runs on every prediction.
  std::set<std::string> trained_precisions, trained_gpus, trained_models;
  // Which codebases' runs trained each precision (manifest domain.precision_codebases; empty in
  // bundles written before it).
  std::map<std::string, std::set<std::string>> precision_codebases;
  // Training runs per GPU and per precision (manifest domain.gpu_runs / precision_runs; empty in
  // bundles written before them, whose jobs are never thin).
  std::map<std::string, int> gpu_runs, precision_runs;
  std::map<std::string, int> architecture_gpu_runs;  // domain.architecture_gpu_runs: its best-supported GPU's runs

  std::unique_ptr<LearnedOpModel> compute;
  std::unique_ptr<LearnedCollectiveModel> communication;
  // The aggregator is a mixed model (stack_effects.hpp): `aggregator` is the typical codebase's
  // correction, shrunk by the job's support; a job naming a trained codebase adds its offset.
  TreeEnsemble aggregator;
  std::map<std::string, double> codebase_offsets;
  CorrectionShrinkage shrinkage;
  double typical_level = 0;  // the typical correction's mean departure from the analytical answer (Shrinkage)
  SupportSpace support;
  struct Band {
    double log_q_low = 0, log_q_high = 0;  // 10 % and 90 % held-out log residuals
  };
  std::map<std::string, Band> bands;  // by kBandNames
  // Factor on a band's log quantiles by ModelDesc::workload_kind (model_zoo.hpp), fitted so each kind's held-out
  // runs fall inside 80 % of the time; a kind not listed: 1.
  std::map<std::string, double> band_scale_by_kind;

 private:
  std::string dir_, checksum_;
  nlohmann::json manifest_;
};

}  // namespace ptp::predict
