// ptp-train's aggregator on held-out rows (trainer_levels.hpp): the honest splits, the shrinkage and
// bands fitted on them, each split's figures, the precision-blind ablation, and calibration on
// stacks the aggregator never saw.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ptp/predict/learned/bundle.hpp"
#include "ptp/predict/learned/features.hpp"
#include "ptp/train/calibration_eval.hpp"
#include "ptp/train/stack_effects.hpp"
#include "ptp/train/thin_support_fit.hpp"
#include "trainer_levels.hpp"

#include "ptp/train/vocabulary.hpp"

namespace ptp::train::detail {

AggregatorTable::AggregatorTable(const std::vector<RunRow>& rows) {
  for (const auto& r : rows) {
    x.add_row(r.features);
    blind_x.add_row(r.blind_features);
    const double uncapped = r.measured_uncapped();
    y.push_back(static_cast<float>(std::log(uncapped / r.composed)));
    blind_y.push_back(static_cast<float>(std::log(uncapped / r.blind_composed)));
    measured.push_back(uncapped);
    power_stretch.push_back(r.power_stretch);
    analytical.push_back(r.analytical_uncapped());  // its error as printed, in this frame
    composed.push_back(r.composed);
    halves.push_back(r.halves);
    blind_halves.push_back(r.blind_halves);
    keys.push_back(r.record->run_id);
    models.push_back(r.model);
    gpus.push_back(r.gpu);
    precisions.push_back(r.precision);
    families.push_back(r.gpu_family);
    codebases.push_back(r.record->codebase);
    kinds.push_back(r.job.model->workload_kind);
    num_gpus.push_back(r.job.job.cluster.num_gpus);
  }
}

nlohmann::json uncalibrated_bands() {
  nlohmann::json bands;
  for (const char* band : kBandNames) bands[band] = {{"log_q_low", 0.0}, {"log_q_high", 0.0}};
  return bands;
}

namespace {

// Honest splits first (leave one codebase / precision out, scale extrapolation at the 80th
// percentile GPU count): the shrinkage of the typical correction is fitted on them, then every
// split is judged with it. The order is the one the fits below index.
std::vector<Split> aggregator_splits(const AggregatorTable& t, nlohmann::json& metrics) {
  std::vector<int> sorted_gpus = t.num_gpus;
  std::sort(sorted_gpus.begin(), sorted_gpus.end());
  const int scale_cut = sorted_gpus[static_cast<std::size_t>(0.8 * static_cast<double>(sorted_gpus.size() - 1))];
  Split scale = scale_split(t.num_gpus, scale_cut);
  scale.name = "scale_extrapolation";
  metrics["scale_extrapolation_max_train_gpus"] = scale_cut;
  return {group_split("leave_one_codebase_out", t.codebases), group_split("leave_one_precision_out", t.precisions), scale,
          kfold_split(t.keys, 5), group_split("leave_one_model_out", t.models), group_split("leave_one_gpu_out", t.gpus)};
}

// Known codebases: fitted on every split but leave-one-codebase-out, which alone fits the unknown.
CorrectionShrinkage fit_split_shrinkage(const std::vector<HeldOutCorrections>& held, const AggregatorTable& t,
                                        nlohmann::json& metrics) {
  const ShrinkageFitRows fit_rows{t.composed, t.analytical, t.measured, t.codebases};
  CorrectionShrinkage shrinkage;
  shrinkage.known = fit_shrinkage({&held[1], &held[2], &held[3], &held[4], &held[5]}, fit_rows, true);
  fit_unknown_shrinkage(held[0], fit_rows, t.kinds, {}, shrinkage);
  nlohmann::json by_kind = nlohmann::json::object();
  for (const auto& [kind, s] : shrinkage.unknown_by_kind) by_kind[kind] = s.to_json();
  metrics["shrinkage"] = {{"known_codebase", shrinkage.known.to_json()},
                          {"known_codebase_fitted_on", {"leave_one_precision_out", "scale_extrapolation", "kfold", "leave_one_model_out", "leave_one_gpu_out"}},
                          {"unknown_codebase", shrinkage.unknown.to_json()},
                          {"unknown_codebase_by_kind", by_kind},
                          {"unknown_codebase_fitted_on", {"leave_one_codebase_out"}}};
  return shrinkage;
}

// Leave-one-codebase-out with the unknown-codebase shrinkage itself fitted without the held-out
// codebase. The split's figures fit it on every codebase's held-out rows, the judged one included,
// so they flatter it by what the fit's few parameters learn of the judged codebase; this is the
// figure a stack the bundle never saw can expect. Each codebase's MAPE, and their macro mean.
void nested_codebase_figures(const HeldOutCorrections& loco, const AggregatorTable& t, const CorrectionShrinkage& shrinkage,
                             nlohmann::json& metrics) {
  const ShrinkageFitRows fit_rows{t.composed, t.analytical, t.measured, t.codebases};
  const std::set<std::string> codebases(t.codebases.begin(), t.codebases.end());
  double macro = 0;
  for (const auto& held_out : codebases) {
    std::vector<char> others(t.codebases.size());
    for (std::size_t i = 0; i < others.size(); ++i) others[i] = t.codebases[i] != held_out;
    CorrectionShrinkage without = shrinkage;
    fit_unknown_shrinkage(loco, fit_rows, t.kinds, others, without);
    std::vector<double> measured, predicted;
    for (std::size_t i = 0; i < others.size(); ++i) {
      if (others[i]) continue;
      const double c = held_out_log_correction(loco, i, without, t.kinds[i]);
      if (!std::isfinite(c)) continue;
      measured.push_back(t.measured[i]);
      predicted.push_back(t.composed[i] * std::exp(c));
    }
    const auto stats = to_json(error_stats(ape_of(measured, predicted)));
    metrics["by_codebase"][held_out]["full_nested"] = stats;
    macro += stats["mape"].get<double>() / static_cast<double>(codebases.size());
  }
  metrics["by_codebase_macro"]["full_nested"] = std::round(100 * macro) / 100;
}

// A workload kind's band scale: the factor on its bands' log quantiles (grid 0.5-3) that puts the
// share of its held-out residuals inside closest to 80 %; for a kind every split holds out this many
// rows of, among the scales that hold at least 75 % on each split (when any does: pooled, the LLM
// band held 80 % and 74 % where its runs were extrapolated in scale). Kinds with fewer held-out
// residuals than this keep 1.
constexpr std::size_t kMinBandScaleRows = 100;

struct HeldOutResidual {
  double r;
  std::string band;
  std::size_t row, split;
};

nlohmann::json fit_band_scales(const std::vector<HeldOutResidual>& residuals, const AggregatorTable& t,
                               const nlohmann::json& interval, std::size_t splits) {
  std::map<std::string, std::vector<const HeldOutResidual*>> by_kind;
  for (const auto& h : residuals) by_kind[t.kinds[h.row]].push_back(&h);
  nlohmann::json scales = nlohmann::json::object();
  for (const auto& [kind, rs] : by_kind) {
    if (rs.size() < kMinBandScaleRows) continue;
    double best = 1, best_gap = 1e300;
    bool best_holds = false;
    for (int step = 0; step <= 50; ++step) {
      const double s = 0.5 + 0.05 * step;
      std::size_t inside = 0;
      std::map<std::size_t, std::pair<std::size_t, std::size_t>> by_split;  // inside, rows
      for (const auto* h : rs) {
        const auto& q = interval[h->band];
        const bool in = h->r >= s * q["log_q_low"].get<double>() && h->r <= s * q["log_q_high"].get<double>();
        inside += in;
        by_split[h->split].first += in;
        ++by_split[h->split].second;
      }
      bool every_split_has_rows = by_split.size() == splits;
      for (const auto& [split, n] : by_split) every_split_has_rows = every_split_has_rows && n.second >= kMinBandScaleRows;
      bool holds = true;
      if (every_split_has_rows)
        for (const auto& [split, n] : by_split)
          if (static_cast<double>(n.first) < 0.75 * static_cast<double>(n.second)) holds = false;
      const double gap = std::fabs(static_cast<double>(inside) / static_cast<double>(rs.size()) - 0.8);
      if ((holds && !best_holds) || (holds == best_holds && gap < best_gap - 1e-12)) best_gap = gap, best = s, best_holds = holds;
    }
    scales[kind] = best;
  }
  return scales;
}

// Bands: 10 % / 90 % quantiles of the held-out log residuals of all six splits, pooled by what
// the predictor knows of a job: whether it names a trained codebase, what it has that no training
// run had (a precision, GPU or model) and whether it extrapolates; then scaled per workload kind
// (`scale_by_kind`: held out, LLM runs fall outside the pooled band more often than CNN runs).
nlohmann::json fit_bands(const std::vector<HeldOutCorrections>& held, const AggregatorTable& t,
                         const CorrectionShrinkage& shrinkage) {
  nlohmann::json interval = uncalibrated_bands();
  std::map<std::string, std::vector<double>> pooled;
  std::vector<HeldOutResidual> residuals;
  for (std::size_t split = 0; split < held.size(); ++split)
    for (std::size_t i = 0; i < t.measured.size(); ++i) {
      const HeldOutCorrections& h = held[split];
      const double c = held_out_log_correction(h, i, shrinkage, t.kinds[i]);
      if (!std::isfinite(c)) continue;
      const double r = std::log(t.measured[i] / (t.composed[i] * std::exp(c)));
      const bool known = std::isfinite(h.offset[i]);
      const std::string band = band_name(known, h.novelty[i], h.support[i]);
      pooled[band].push_back(r);
      pooled[known ? "known_codebase" : "unknown_codebase"].push_back(r);
      residuals.push_back({r, band, i, split});
    }
  for (const char* band : kBandNames) {
    // Too few held-out rows in a band: the pooled residuals of its known / unknown group.
    const auto& r = pooled[band].size() >= 20 ? pooled[band]
                                              : pooled[std::string(band).rfind("known", 0) == 0 ? "known_codebase" : "unknown_codebase"];
    interval[band] = {{"log_q_low", quantile(r, 0.1)}, {"log_q_high", quantile(r, 0.9)}, {"rows", r.size()}};
  }
  // Far from the training runs the band is never narrower than near them: an extrapolating job's band
  // spans at least every nearest-run bucket's of its group, on each side (the held-out quantiles alone
  // can come out narrower, a property of one training run, not of the data's reach). A precision no
  // training run had extrapolates too, with the band held-out precisions measured.
  for (const auto& [group, far_band] : std::vector<std::pair<std::string, std::string>>{
           {"known_codebase.", "extrapolating"}, {"known_codebase.", "new_precision"}, {"unknown_codebase.", "extrapolating"}}) {
    auto& far = interval[group + far_band];
    for (const char* band : kBandNames) {
      const std::string name = band;
      if (name.rfind(group + "nearest_", 0) != 0) continue;
      far["log_q_low"] = std::min(far["log_q_low"].get<double>(), interval[name]["log_q_low"].get<double>());
      far["log_q_high"] = std::max(far["log_q_high"].get<double>(), interval[name]["log_q_high"].get<double>());
    }
  }
  interval["scale_by_kind"] = fit_band_scales(residuals, t, interval, held.size());
  return interval;
}

// The fitted band scale of each workload kind (a kind without one: 1).
std::map<std::string, double> band_scales(const nlohmann::json& interval) {
  std::map<std::string, double> scales;
  if (interval.contains("scale_by_kind"))
    for (const auto& [kind, s] : interval.at("scale_by_kind").items()) scales[kind] = s.get<double>();
  return scales;
}

// The ablation ladder on one split's held-out rows (`full`: the split's predictions, NaN where a row
// was not held out), and per codebase on leave-one-codebase-out.
void ladder_figures(const std::vector<RunRow>& rows, const AggregatorTable& t, const Split& split,
                    const std::vector<double>& full, nlohmann::json& metrics) {
  std::vector<double> held_measured;
  std::map<std::string, std::vector<double>> ladder;
  std::map<std::string, std::map<std::string, std::pair<std::vector<double>, std::vector<double>>>> by_codebase;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!std::isfinite(full[i])) continue;
    held_measured.push_back(t.measured[i]);
    const std::pair<const char*, double> levels[] = {{"analytical", rows[i].analytical}, {"compute", rows[i].compute_only},
                                                     {"compute_communication", rows[i].composed}, {"full", full[i]}};
    for (const auto& [level, v] : levels) {
      ladder[level].push_back(v);
      by_codebase[t.codebases[i]][level].first.push_back(t.measured[i]);
      by_codebase[t.codebases[i]][level].second.push_back(v);
    }
  }
  for (const auto& [level, pred] : ladder) metrics["ladder"][split.name][level] = to_json(error_stats(ape_of(held_measured, pred)));
  if (split.name != "leave_one_codebase_out") return;
  double macro_an = 0, macro_full = 0;
  for (const auto& [cb, levels] : by_codebase) {
    for (const auto& [level, mp] : levels)
      metrics["by_codebase"][cb][level] = to_json(error_stats(ape_of(mp.first, mp.second)));
    macro_an += metrics["by_codebase"][cb]["analytical"]["mape"].get<double>() / static_cast<double>(by_codebase.size());
    macro_full += metrics["by_codebase"][cb]["full"]["mape"].get<double>() / static_cast<double>(by_codebase.size());
  }
  metrics["by_codebase_macro"] = {{"analytical", std::round(100 * macro_an) / 100}, {"full", std::round(100 * macro_full) / 100}};
}

// One split's figures: the learned and typical-codebase errors, the band coverage and the ladder.
// Returns the split's held-out predictions (report/predictions.csv's column).
std::vector<double> judge_split(const TrainOptions& o, const std::vector<RunRow>& rows, const AggregatorTable& t,
                                const Split& split, const HeldOutCorrections& h, const CorrectionShrinkage& shrinkage,
                                nlohmann::json& interval, const ReportBlock& report_block, nlohmann::json& metrics) {
  std::vector<double> full(rows.size(), std::nan("")), typical(rows.size(), std::nan(""));
  int inside = 0, total = 0;
  std::map<std::string, std::pair<int, int>> by_kind;  // inside, total
  const std::map<std::string, double> scales = band_scales(interval);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double c = held_out_log_correction(h, i, shrinkage, t.kinds[i]);
    if (!std::isfinite(c)) continue;
    full[i] = t.composed[i] * std::exp(c);
    typical[i] = t.composed[i] * std::exp(shrinkage.of_unknown(t.kinds[i]).log_correction(h.support[i], h.typical[i],
                                                                           h.halves[i], h.level[i]));
    // Coverage of the band the row would get.
    const auto& q = interval[band_name(std::isfinite(h.offset[i]), h.novelty[i], h.support[i])];
    const double r = std::log(t.measured[i] / full[i]);
    const auto scale = scales.find(t.kinds[i]);
    const double s = scale == scales.end() ? 1.0 : scale->second;
    const bool in_band = r >= s * q["log_q_low"].get<double>() && r <= s * q["log_q_high"].get<double>();
    ++total;
    inside += in_band;
    by_kind[t.kinds[i]].first += in_band;
    ++by_kind[t.kinds[i]].second;
  }
  metrics["cv"][split.name] = {{"learned", report_block(full)}, {"typical_codebase", report_block(typical)}};
  metrics["cv"][split.name]["band_coverage"] = total ? std::round(1000.0 * inside / total) / 1000 : 0.0;
  for (const auto& [kind, n] : by_kind)
    metrics["cv"][split.name]["band_coverage_by_kind"][kind] = {{"coverage", std::round(1000.0 * n.first / n.second) / 1000},
                                                                {"rows", n.second}};
  ladder_figures(rows, t, split, full, metrics);
  o.log(split.name + ": learned " + metrics["cv"][split.name]["learned"]["overall"].dump() + ", band coverage " +
        metrics["cv"][split.name]["band_coverage"].dump());
  return full;
}

// The precision-blind ablation on the splits that judge precision: same mixed model, no
// precision features, the whole correction (its composed step is the FP32 one, far off).
void blind_ablation(const std::vector<RunRow>& rows, const AggregatorTable& t, const std::vector<Split>& splits,
                    const BoosterParams& agg, int workers, const ReportBlock& report_block, nlohmann::json& metrics) {
  const CorrectionShrinkage whole;
  for (const auto& split : {splits[1], splits[3]}) {
    const auto h = held_out_corrections(t.blind_x, t.blind_y, t.codebases, run_feature_names(true), agg, split, workers,
                                        t.blind_halves);
    std::vector<double> pb(rows.size(), std::nan(""));
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (const double c = held_out_log_correction(h, i, whole, t.kinds[i]); std::isfinite(c)) pb[i] = rows[i].blind_composed * std::exp(c);
    metrics["cv"][split.name]["blind"] = report_block(pb);
  }
}

}  // namespace

AggregatorCv cross_validate_aggregator(const TrainOptions& o, const std::vector<RunRow>& rows, const AggregatorTable& t,
                                       const BoosterParams& agg, int workers, const ReportBlock& report_block,
                                       nlohmann::json& metrics) {
  const std::vector<Split> splits = aggregator_splits(t, metrics);
  std::vector<HeldOutCorrections> held;
  const RowDomains domains{t.precisions, t.gpus, t.models, t.families};
  for (const auto& split : splits) {
    held.push_back(held_out_corrections(t.x, t.y, t.codebases, run_feature_names(false), agg, split, workers, t.halves, &domains));
    o.log(split.name + ": held-out corrections done");
  }
  AggregatorCv cv;
  cv.shrinkage = fit_split_shrinkage(held, t, metrics);
  const ShrinkageFitRows fit_rows{t.composed, t.analytical, t.measured, t.codebases};
  const ThinSupportRows thin_rows{t.gpus, t.families, t.precisions, t.kinds};
  cv.shrinkage.thin = fit_thin_support(held[5], held[1], held[0], fit_rows, thin_rows, cv.shrinkage, metrics["thin_support"]);
  metrics["shrinkage"]["thin_support"] = cv.shrinkage.thin.to_json();
  metrics["shrinkage"]["thin_support_fitted_on"] = {"leave_one_gpu_out", "leave_one_precision_out", "leave_one_codebase_out"};
  for (auto& h : held) apply_thin_support(h, cv.shrinkage.thin, thin_rows);
  o.log("thin support shares: " + cv.shrinkage.thin.to_json().dump());
  cv.interval = fit_bands(held, t, cv.shrinkage);
  for (std::size_t s = 0; s < splits.size(); ++s)
    cv.oof_columns[splits[s].name] = judge_split(o, rows, t, splits[s], held[s], cv.shrinkage, cv.interval, report_block, metrics);
  nested_codebase_figures(held[0], t, cv.shrinkage, metrics);
  o.log("leave_one_codebase_out, shrinkage fitted without the held-out codebase: macro " +
        metrics["by_codebase_macro"]["full_nested"].dump());
  blind_ablation(rows, t, splits, agg, workers, report_block, metrics);
  return cv;
}

std::string evaluate_calibration_held_out(const TrainOptions& o, const std::vector<RunRow>& rows, const AggregatorTable& t,
                                          const BoosterParams& agg, int workers, const CorrectionShrinkage& shrinkage,
                                          nlohmann::json& metrics) {
  const DenseMatrix& ax = t.x;
  const std::vector<float>& ay = t.y;
  const std::vector<double>& measured = t.measured;
  const std::vector<std::string>& codebases = t.codebases;
  // Calibration is for stacks the bundle never saw: each stack's runs get an aggregator trained
  // without that stack, then the stack's own runs calibrate each other (calibration_eval.hpp), on
  // the learned answer, on the learned levels without the step correction and on the analytical
  // answer. A stack of one run has no pair to evaluate, so it only ever trains.
  std::vector<std::string> stacks;
  for (const auto& r : rows) stacks.push_back(r.record->stack);
  const Split split = group_split("leave_one_stack_out", stacks, 2);
  const RowDomains domains{t.precisions, t.gpus, t.models, t.families};
  auto h = held_out_corrections(ax, ay, codebases, run_feature_names(false), agg, split, workers, t.halves, &domains);
  apply_thin_support(h, shrinkage.thin, ThinSupportRows{t.gpus, t.families, t.precisions, t.kinds});
  CalibrationBase learned{"learned", "the learned answer, its step correction from an aggregator trained without the stack", {}};
  CalibrationBase aside{"levels_only", "the learned levels (op times, communication) without the step correction", {}};
  CalibrationBase analytical{"analytical", "the analytical answer (--analytical)", {}};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!std::isfinite(h.typical[i])) continue;  // a row no fold held out
    // The parts ptp-predict would calibrate: the composed step with each half at its held-out factor.
    Prediction corrected = rows[i].composed_step;
    const HalfFactors k = held_out_factors(h, i, shrinkage, t.kinds[i]);
    scale_prediction_halves(corrected, k.invariant, k.sharded);
    const auto& rec = *rows[i].record;
    learned.rows.push_back({rec.stack, rec.run_id, "learned", step_parts(corrected), measured[i], rec.job});
    aside.rows.push_back({rec.stack, rec.run_id, "levels_only", step_parts(rows[i].composed_step), measured[i], rec.job});
    // The analytical answer in the levels' uncapped frame, as the measured step is.
    StepParts a = step_parts(rows[i].analytical_step);
    if (rows[i].analytical > 0) a.scale(rows[i].analytical_uncapped() / rows[i].analytical);
    analytical.rows.push_back({rec.stack, rec.run_id, "analytical", a, measured[i], rec.job});
  }
  const auto evaluation = evaluate_calibration({learned, aside, analytical});
  metrics["calibration"] = evaluation.metrics;
  for (const auto& [base, b] : metrics["calibration"]["bases"].items()) {
    std::string line = "calibration on " + base + ", leave one row out:";
    for (const auto& [group, e] : b["leave_one_row_out"].items())
      line += " " + group + " " + e["uncalibrated"]["mape"].dump() + " -> " + e["calibrated"]["mape"].dump() + " %";
    o.log(line);
  }
  return evaluation.markdown;
}

}  // namespace ptp::train::detail
