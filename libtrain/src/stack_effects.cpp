#include "ptp/train/stack_effects.hpp"

#include <cmath>
#include <set>

namespace ptp::train {


StackFit fit_stack_effects(const DenseMatrix& x, const std::vector<float>& y, const std::vector<std::string>& codebases,
                           const std::vector<std::string>& names, const BoosterParams& params) {
  StackFit fit;
  std::vector<float> target = y;
  for (int pass = 0; pass < 2; ++pass) {
    fit.typical = Booster::train(x, target, names, params);
    const auto f = fit.typical.predict(x);
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
  return fit;
}

HeldOutCorrections held_out_corrections(const DenseMatrix& x, const std::vector<float>& y,
                                        const std::vector<std::string>& codebases, const std::vector<std::string>& names,
                                        const BoosterParams& params, const Split& split, int workers) {
  HeldOutCorrections h;
  h.typical.assign(y.size(), std::nan(""));
  h.offset.assign(y.size(), std::nan(""));
  h.support.assign(y.size(), Support{});
  const bool described = SupportSpace::describes(names);
  for_each_fold(split, y.size(), workers, [&](const std::vector<std::size_t>& train, const std::vector<std::size_t>& test) {
    std::vector<float> ty;
    std::vector<std::string> tc;
    std::vector<std::vector<float>> train_rows;
    for (auto i : train) ty.push_back(y[i]), tc.push_back(codebases[i]), train_rows.push_back(x.row(i));
    const StackFit fit = fit_stack_effects(x.select(train), ty, tc, names, params);
    const SupportSpace space = described ? SupportSpace(train_rows, names) : SupportSpace();
    const auto p = fit.typical.predict(x.select(test));
    for (std::size_t j = 0; j < test.size(); ++j) {  // folds write disjoint rows
      const std::size_t i = test[j];
      h.typical[i] = p[j];
      if (auto it = fit.offsets.find(codebases[i]); it != fit.offsets.end()) h.offset[i] = it->second;
      if (described) h.support[i] = space.of(x.row(i));
      else h.support[i].runs_near = 1;  // the precision-blind ablation is judged as if supported
    }
  });
  return h;
}

double held_out_log_correction(const HeldOutCorrections& h, std::size_t i, const CorrectionShrinkage& s) {
  if (!std::isfinite(h.typical[i])) return std::nan("");
  const bool known = std::isfinite(h.offset[i]);
  return (known ? s.known : s.unknown).share(h.support[i]) * h.typical[i] + (known ? h.offset[i] : 0.0);
}

Shrinkage fit_shrinkage(const std::vector<const HeldOutCorrections*>& splits, const std::vector<double>& composed,
                        const std::vector<double>& measured, bool known_codebase) {
  Shrinkage best;
  double best_score = 1e300;
  for (int m = 0; m <= 20; ++m)
    for (double half : {0.0, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0})
      for (double extrapolating : {0.0, 0.25, 0.5, 0.75, 1.0}) {
        const Shrinkage s{m / 20.0, half, extrapolating};
        double score = 0;
        for (const auto* h : splits) {
          double sum = 0;
          int n = 0;
          for (std::size_t i = 0; i < measured.size(); ++i) {
            if (!std::isfinite(h->typical[i]) || std::isfinite(h->offset[i]) != known_codebase) continue;
            const double c = s.share(h->support[i]) * h->typical[i] + (known_codebase ? h->offset[i] : 0.0);
            sum += std::fabs(composed[i] * std::exp(c) - measured[i]) / measured[i];
            ++n;
          }
          score += n ? sum / n : 0;
        }
        if (score < best_score - 1e-12) best_score = score, best = s;
      }
  return best;
}

}  // namespace ptp::train
