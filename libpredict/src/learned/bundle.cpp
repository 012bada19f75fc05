#include "ptp/predict/learned/bundle.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "ptp/predict/learned/features.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {
bool is_model_parallel(const JobSpec& j) {
  const auto& par = j.parallelism;
  return par.tensor > 1 || par.pipeline > 1 || par.context > 1 || par.expert > 1;
}
}  // namespace

std::string LearnedBundle::describe_domain_gap(const nlohmann::json& manifest, const ResolvedJob& job) {
  if (is_model_parallel(job.job) && !manifest.at("domain").value("model_parallel", false))
    return "the bundle was trained on data-parallel runs only";
  return "";
}

Novelty LearnedBundle::novelty_of(const ResolvedJob& job) const {
  return ptp::predict::novelty_of(trained_precisions.count(job.policy->id) > 0, trained_gpus.count(job.gpu->id) > 0,
                         trained_models.count(job.job.model) > 0);
}

Prediction LearnedBundle::predict(const ResolvedJob& job, const AnalyticalConstants& base) const {
  LearnedMemo memo;
  return predict(job, base, memo);
}

Support LearnedBundle::support_of(const std::vector<float>& row, LearnedMemo& memo) const {
  if (!memo.keep_unsharded_rows) return support.of(row);
  auto& kept = memo.support_answers;
  const auto it = std::find_if(kept.begin(), kept.end(), [&](const auto& answer) { return answer.first == row; });
  if (it != kept.end()) {
    ++memo.support_hits;
    std::rotate(it, it + 1, kept.end());
    return kept.back().second;
  }
  ++memo.support_misses;
  constexpr std::size_t kKeep = 8;
  if (kept.size() == kKeep) kept.erase(kept.begin());
  kept.emplace_back(row, support.of(row));
  return kept.back().second;
}

Prediction LearnedBundle::predict(const ResolvedJob& job, const AnalyticalConstants& base, LearnedMemo& memo) const {
  const std::string gap = describe_domain_gap(manifest_, job);
  if (!gap.empty()) {
    Prediction p = predict_analytical(job, base);
    p.warnings.push_back("learned bundle not used: " + gap + "; analytical answer");
    return p;
  }
  LearnedComposition composed =
      compose_learned(job, base, {compute.get(), communication.get()}, memo, AggregatorRow::full);
  Prediction p = std::move(composed.step);
  const std::vector<float> row = std::move(composed.aggregator_row);
  const StepHalves halves = composed.halves;
  Support near = support_of(row, memo);
  near.precision_of_one_codebase = precision_of_one_codebase(precision_codebases, job.policy->id, job.job.codebase);
  const Novelty novelty = novelty_of(job);
  near.precision_untrained = novelty == Novelty::precision;
  const auto runs_of = [](const std::map<std::string, int>& counts, const std::string& key) {
    const auto it = counts.find(key);
    return it == counts.end() ? 0 : it->second;
  };
  const bool counted = !gpu_runs.empty() && !precision_runs.empty() && !architecture_gpu_runs.empty();
  const int gpu_n = counted ? runs_of(gpu_runs, job.gpu->id) : -1;
  const int architecture_n = counted ? runs_of(architecture_gpu_runs, job.gpu->architecture) : -1;
  const int precision_n = counted ? runs_of(precision_runs, job.policy->id) : -1;
  near.thin_support_factor =
      counted ? shrinkage.thin.factor(job.gpu->architecture, architecture_n, job.policy->id, precision_n) : 1.0;
  auto& s = p.support;
  s.assessed = true;
  s.runs_near = near.runs_near;
  s.outside = near.outside;
  s.extrapolating = near.extrapolating();
  s.precision_of_one_codebase = near.precision_of_one_codebase;
  s.gpu_runs = gpu_n;
  s.precision_runs = precision_n;
  s.thin_support_factor = near.thin_support_factor;
  s.codebase = job.job.codebase;
  const auto offset = s.codebase.empty() ? codebase_offsets.end() : codebase_offsets.find(s.codebase);
  s.codebase_known = offset != codebase_offsets.end();
  s.codebase_offset = s.codebase_known ? offset->second : 0.0;
  const Shrinkage& shrink = s.codebase_known ? shrinkage.known : shrinkage.of_unknown(job.model->workload_kind);
  p.aggregator_share = shrink.share(near);
  const HalfFactors factors = shrink.factors(near, aggregator.predict_one(row), halves, typical_level);
  // Searches predict hundreds of thousands of jobs: messages are built only when warned.
  if (!s.codebase.empty() && !s.codebase_known) {
    std::string known;
    for (const auto& [name, v] : codebase_offsets) known += (known.empty() ? "" : ", ") + name;
    p.warnings.push_back("codebase '" + s.codebase + "' has no training runs in the bundle (it has " + known +
                         "): a typical codebase assumed");
  }
  if (s.extrapolating) {
    std::string why = std::to_string(s.runs_near) + " training runs near it";
    for (const auto& f : s.outside) why += (f == s.outside.front() ? "; outside the trained range: " : ", ") + f;
    if (!near.precision_of_one_codebase.empty())
      why += "; its " + job.policy->id + " runs all come from one codebase, " + near.precision_of_one_codebase;
    if (near.precision_untrained)
      why += "; the bundle has no training runs in " + job.policy->id +
             ", so its correction comes from the other precisions (leave-one-precision-out in its report)";
    p.warnings.push_back("extrapolating (" + why + "): " +
                         std::to_string(static_cast<int>(std::lround(p.aggregator_share * 100))) +
                         " % of the learned correction applied, band widened");
  }
  if (near.thin_support_factor < 1) {
    std::string thin;
    const auto& shares = shrinkage.thin;
    if (architecture_n < kThinSupportRuns && shares.gpu_share(job.gpu->architecture) < 1)
      thin = std::to_string(gpu_n) + " training runs on " + job.gpu->id + ", at most " + std::to_string(architecture_n) +
             " on any " + job.gpu->architecture + " GPU";
    if (precision_n < kThinSupportRuns && shares.precision_share(job.policy->id) < 1)
      thin += (thin.empty() ? "" : " and ") + std::to_string(precision_n) + " in " + job.policy->id;
    p.warnings.push_back("thin support (" + thin + ", under " + std::to_string(kThinSupportRuns) +
                         "): the learned correction keeps " +
                         std::to_string(static_cast<int>(std::lround(near.thin_support_factor * 100))) +
                         " % of its share, what the bundle's held-out GPUs, precisions and codebases show it earns there");
  }
  s.novelty = novelty_name(novelty);
  const double codebase_factor = std::exp(s.codebase_offset);
  scale_prediction_halves(p, factors.invariant * codebase_factor, factors.sharded * codebase_factor);
  p.aggregator_factor = halves.composed() > 0 ? p.iteration_s / halves.composed() : factors.invariant * codebase_factor;
  s.band = band_name(s.codebase_known, novelty, near);
  const Band& band = bands.at(s.band);
  const auto scale_it = band_scale_by_kind.find(job.model->workload_kind);
  const double scale = scale_it == band_scale_by_kind.end() ? 1.0 : scale_it->second;
  p.iteration_low_s = p.iteration_s * std::exp(scale * band.log_q_low);
  p.iteration_high_s = p.iteration_s * std::exp(scale * band.log_q_high);
  // Held-out residuals never land exactly on 0: a zero-width band is what ptp-train --no-cv writes.
  if (band.log_q_low == 0 && band.log_q_high == 0)
    p.warnings.push_back("the bundle was trained without cross-validation (ptp-train --no-cv): its 80 % band is not "
                         "calibrated (zero width)");
  fill_mfu(job, p);
  fill_totals(job, p);
  p.predictor_kind = "learned";
  p.bundle = dir_;
  p.bundle_checksum = checksum_;
  return p;
}

}  // namespace ptp::predict
