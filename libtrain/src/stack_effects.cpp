#include "ptp/train/stack_effects.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

#include "ptp/train/vocabulary.hpp"

namespace ptp::train {


StackFit fit_stack_effects(const DenseMatrix& x, const std::vector<float>& y, const std::vector<std::string>& codebases,
                           const std::vector<std::string>& names, const BoosterParams& params,
                           const std::vector<StepHalves>& halves) {
  StackFit fit;
  std::vector<float> target = y;
  std::vector<float> f;
  for (int pass = 0; pass < 2; ++pass) {
    fit.typical = Booster::train(x, target, names, params);
    f = fit.typical.predict(x);
    std::map<std::string, std::pair<double, double>> sums;  // codebase -> (residual sum, runs)
    for (std::size_t i = 0; i < y.size(); ++i) {
      auto& s = sums[codebases[i]];
      s.first += y[i] - f[i];
      s.second += 1;
    }
    for (const auto& [c, s] : sums) fit.offsets[c] = s.first / (s.second + kStackOffsetPrior);
    if (pass == 0)
      for (std::size_t i = 0; i < y.size(); ++i) target[i] = static_cast<float>(y[i] - fit.offsets[codebases[i]]);
  }
  std::map<std::string, std::pair<double, double>> levels;  // codebase -> (sum of log(typical / analytical), runs)
  for (std::size_t i = 0; i < y.size(); ++i) {
    auto& l = levels[codebases[i]];
    l.first += f[i] + halves[i].log_composed_over_analytical();
    l.second += 1;
  }
  for (const auto& [c, l] : levels) fit.level += l.first / l.second / static_cast<double>(levels.size());
  return fit;
}

std::map<std::string, std::set<std::string>> codebases_by_precision(const std::vector<std::string>& precisions,
                                                                   const std::vector<std::string>& codebases,
                                                                   const std::vector<std::size_t>& rows) {
  std::map<std::string, std::set<std::string>> by;
  for (auto i : rows) by[precisions[i]].insert(codebases[i]);
  return by;
}

HeldOutCorrections held_out_corrections(const DenseMatrix& x, const std::vector<float>& y,
                                        const std::vector<std::string>& codebases, const std::vector<std::string>& names,
                                        const BoosterParams& params, const Split& split, int workers,
                                        const std::vector<StepHalves>& halves, const RowDomains* domains) {
  HeldOutCorrections h;
  h.typical.assign(y.size(), std::nan(""));
  h.offset.assign(y.size(), std::nan(""));
  h.support.assign(y.size(), Support{});
  h.level.assign(y.size(), 0.0);
  h.novelty.assign(y.size(), Novelty::none);
  h.gpu_runs.assign(y.size(), -1);
  h.architecture_gpu_runs.assign(y.size(), -1);
  h.precision_runs.assign(y.size(), -1);
  h.halves = halves;
  const bool described = SupportSpace::describes(names);
  for_each_fold(split, y.size(), workers, [&](const std::vector<std::size_t>& train, const std::vector<std::size_t>& test) {
    std::vector<float> ty;
    std::vector<std::string> tc;
    std::vector<StepHalves> td;
    std::vector<std::vector<float>> train_rows;
    for (auto i : train)
      ty.push_back(y[i]), tc.push_back(codebases[i]), td.push_back(halves[i]), train_rows.push_back(x.row(i));
    const StackFit fit = fit_stack_effects(x.select(train), ty, tc, names, params, td);
    const SupportSpace space = described ? SupportSpace(train_rows, names) : SupportSpace();
    const auto p = fit.typical.predict(x.select(test));
    std::set<std::string> gpus, models;
    std::map<std::string, std::set<std::string>> trained_precisions;  // precision -> its training codebases
    std::map<std::string, int> gpu_runs, precision_runs, architecture_gpu_runs;
    if (domains) {
      trained_precisions = codebases_by_precision(domains->precisions, codebases, train);
      for (auto i : train) {
        gpus.insert(domains->gpus[i]), models.insert(domains->models[i]);
        ++gpu_runs[domains->gpus[i]], ++precision_runs[domains->precisions[i]];
      }
      for (auto i : train) {
        int& best = architecture_gpu_runs[domains->architectures[i]];
        best = std::max(best, gpu_runs[domains->gpus[i]]);
      }
    }
    for (std::size_t j = 0; j < test.size(); ++j) {  // folds write disjoint rows
      const std::size_t i = test[j];
      h.typical[i] = p[j];
      h.level[i] = fit.level;
      if (auto it = fit.offsets.find(codebases[i]); it != fit.offsets.end()) h.offset[i] = it->second;
      if (domains) {
        h.gpu_runs[i] = gpu_runs.count(domains->gpus[i]) ? gpu_runs.at(domains->gpus[i]) : 0;
        h.precision_runs[i] = precision_runs.count(domains->precisions[i]) ? precision_runs.at(domains->precisions[i]) : 0;
        const auto best = architecture_gpu_runs.find(domains->architectures[i]);
        h.architecture_gpu_runs[i] = best == architecture_gpu_runs.end() ? 0 : best->second;
      }
      if (domains)
        h.novelty[i] = novelty_of(trained_precisions.count(domains->precisions[i]) > 0, gpus.count(domains->gpus[i]) > 0,
                                  models.count(domains->models[i]) > 0);
      if (described) h.support[i] = space.of(x.row(i));
      else h.support[i].runs_near = 1;  // the precision-blind ablation is judged as if supported
      if (domains && described) {
        h.support[i].precision_of_one_codebase =
            precision_of_one_codebase(trained_precisions, domains->precisions[i], codebases[i]);
        h.support[i].precision_untrained = trained_precisions.count(domains->precisions[i]) == 0;
      }
    }
  });
  return h;
}

namespace {
// Row i's held-out log correction under one shrinkage (the row's offset added when its fold trained
// on its codebase).
double log_correction_under(const HeldOutCorrections& h, std::size_t i, const Shrinkage& s) {
  return s.log_correction(h.support[i], h.typical[i], h.halves[i], h.level[i]) +
         (std::isfinite(h.offset[i]) ? h.offset[i] : 0.0);
}
}  // namespace

namespace {
// The shrinkage row i gets: the known one when its fold trained on its codebase, else its kind's.
const Shrinkage& shrinkage_of(const HeldOutCorrections& h, std::size_t i, const CorrectionShrinkage& s,
                              const std::string& kind) {
  return std::isfinite(h.offset[i]) ? s.known : s.of_unknown(kind);
}
}  // namespace

double held_out_log_correction(const HeldOutCorrections& h, std::size_t i, const CorrectionShrinkage& s,
                               const std::string& kind) {
  if (!std::isfinite(h.typical[i])) return std::nan("");
  return log_correction_under(h, i, shrinkage_of(h, i, s, kind));
}

HalfFactors held_out_factors(const HeldOutCorrections& h, std::size_t i, const CorrectionShrinkage& s,
                             const std::string& kind) {
  HalfFactors k = shrinkage_of(h, i, s, kind).factors(h.support[i], h.typical[i], h.halves[i], h.level[i]);
  const double offset = std::isfinite(h.offset[i]) ? std::exp(h.offset[i]) : 1.0;
  k.invariant *= offset;
  k.sharded *= offset;
  return k;
}

namespace {

// One split's score of a shrinkage: MAPE over its rows of the wanted kind, or for unknown codebases
// the mean over codebases of MAPE plus its excess over the analytical answer's.
double split_score(const HeldOutCorrections& h, const Shrinkage& s, const ShrinkageFitRows& rows, bool known_codebase,
                   const std::vector<char>& fitted_on) {
  std::map<std::string, std::array<double, 3>> by_codebase;  // learned APE sum, analytical APE sum, rows
  double sum = 0;
  int n = 0;
  for (std::size_t i = 0; i < rows.measured.size(); ++i) {
    if (!std::isfinite(h.typical[i]) || std::isfinite(h.offset[i]) != known_codebase) continue;
    if (!fitted_on.empty() && !fitted_on[i]) continue;
    const double c = log_correction_under(h, i, s);
    const double ape = std::fabs(rows.composed[i] * std::exp(c) - rows.measured[i]) / rows.measured[i];
    sum += ape;
    ++n;
    auto& b = by_codebase[rows.codebases[i]];
    b[0] += ape;
    b[1] += std::fabs(rows.analytical[i] - rows.measured[i]) / rows.measured[i];
    b[2] += 1;
  }
  if (known_codebase) return n ? sum / n : 0;
  double score = 0;
  for (const auto& [codebase, b] : by_codebase) score += (b[0] + std::max(0.0, b[0] - b[1])) / b[2];
  return by_codebase.empty() ? 0 : score / static_cast<double>(by_codebase.size());
}

}  // namespace

Shrinkage fit_shrinkage(const std::vector<const HeldOutCorrections*>& splits, const ShrinkageFitRows& rows,
                        bool known_codebase, const std::vector<char>& fitted_on) {
  Shrinkage best;
  double best_score = 1e300;
  // A known codebase's offset is its level, so only an unknown one has a level to choose.
  const std::vector<double> levels_kept = known_codebase ? std::vector<double>{1.0} : std::vector<double>{0.0, 0.25, 0.5, 0.75, 1.0};
  for (int m = 0; m <= 20; ++m)
    for (double half : {0.0, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0})
      for (double extrapolating : {0.0, 0.25, 0.5, 0.75, 1.0})
        for (double kept : levels_kept) {
          const Shrinkage s{m / 20.0, half, extrapolating, kept};
          double score = 0;
          for (const auto* h : splits) score += split_score(*h, s, rows, known_codebase, fitted_on);
          if (score < best_score - 1e-12) best_score = score, best = s;
        }
  return best;
}

void fit_unknown_shrinkage(const HeldOutCorrections& loco, const ShrinkageFitRows& rows,
                           const std::vector<std::string>& kinds, const std::vector<char>& fitted_on,
                           CorrectionShrinkage& out) {
  out.unknown = fit_shrinkage({&loco}, rows, false, fitted_on);
  out.unknown_by_kind.clear();
  std::map<std::string, std::set<std::string>> codebases_of_kind;
  for (std::size_t i = 0; i < kinds.size(); ++i) codebases_of_kind[kinds[i]].insert(rows.codebases[i]);
  for (const auto& [kind, codebases] : codebases_of_kind) {
    if (codebases.size() < kMinKindCodebases) continue;
    std::vector<char> of_kind(kinds.size());
    for (std::size_t i = 0; i < of_kind.size(); ++i) of_kind[i] = kinds[i] == kind && (fitted_on.empty() || fitted_on[i]);
    out.unknown_by_kind[kind] = fit_shrinkage({&loco}, rows, false, of_kind);
  }
}

}  // namespace ptp::train
