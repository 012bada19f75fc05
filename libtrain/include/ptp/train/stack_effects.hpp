#pragma once
// The aggregator as a mixed model: log(measured / composed) = f(features) + b(codebase) + noise.
// b is each publishing codebase's own speed (its kernels, fusions, overlap, input pipeline), a
// random effect shrunk toward zero by the codebase's run count; f, trained on what remains, is the
// correction of a typical codebase, the only one a job from an unknown stack can use. Before, one
// booster learned both, and a codebase's speed reached other stacks through whatever features
// identified it (sharding, framework, model family).
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ptp/predict/learned/bundle.hpp"
#include "ptp/predict/learned/dense_matrix.hpp"
#include "ptp/predict/learned/support.hpp"
#include "ptp/train/booster.hpp"
#include "ptp/train/evaluation.hpp"

#include "ptp/train/vocabulary.hpp"

namespace ptp::train {

// Shrinkage of a codebase's mean residual: b = sum(r) / (n + kStackOffsetPrior), i.e. a codebase
// with 20 runs keeps half its mean. (Five values 5..80 on leave-one-codebase-out moved its MAPE by
// under 0.3 points; 20 is mid-range.)
inline constexpr double kStackOffsetPrior = 20;

struct StackFit {
  Booster typical;                        // f
  std::map<std::string, double> offsets;  // b by codebase (log space)
  // f's level: the mean over codebases of each one's mean log(typical answer / analytical answer)
  // on its training runs (Shrinkage::level_kept).
  double level = 0;
};
// Backfitting: f on y, offsets from its residuals, f again on y minus the offsets.
// `halves`: each run's step halves, composed and analytical, where shrinkage starts from
// (AggregatorRowValues::halves).
StackFit fit_stack_effects(const DenseMatrix& x, const std::vector<float>& y, const std::vector<std::string>& codebases,
                           const std::vector<std::string>& names, const BoosterParams& params,
                           const std::vector<StepHalves>& halves);

// Held-out answers of one split: per row, f from a fit without the row's fold, the offset of its
// codebase when the fold trained on it (NaN otherwise), its support against the fold's rows, and its
// step halves, composed and analytical (where shrinkage moves from, besides f).
struct HeldOutCorrections {
  std::vector<double> typical, offset;
  std::vector<StepHalves> halves;
  std::vector<double> level;  // StackFit::level of the row's fold
  std::vector<Support> support;
  std::vector<Novelty> novelty;  // what the row has that its fold's training rows did not
  // Training runs of the row's fold on its GPU, on the best-supported GPU of its GPU's architecture
  // and in its precision (-1: no domains given).
  std::vector<int> gpu_runs, architecture_gpu_runs, precision_runs;
};
// Each row's precision, GPU and model: what a fold's training rows must have for a row to be seen.
struct RowDomains {
  const std::vector<std::string>& precisions;
  const std::vector<std::string>& gpus;
  const std::vector<std::string>& models;
  const std::vector<std::string>& architectures;  // each row's GPU architecture
};
// Which codebases' runs among `rows` have each precision: the manifest's domain.precision_codebases
// (all rows) and each fold's (its training rows), read by Support::precision_of_one_codebase.
std::map<std::string, std::set<std::string>> codebases_by_precision(const std::vector<std::string>& precisions,
                                                                   const std::vector<std::string>& codebases,
                                                                   const std::vector<std::size_t>& rows);
HeldOutCorrections held_out_corrections(const DenseMatrix& x, const std::vector<float>& y,
                                        const std::vector<std::string>& codebases, const std::vector<std::string>& names,
                                        const BoosterParams& params, const Split& split, int workers,
                                        const std::vector<StepHalves>& halves, const RowDomains* domains = nullptr);

// The log correction (against the composed step) a held-out row gets: Shrinkage::log_correction of f,
// plus its codebase's offset when its fold trained on the codebase (the `known` shrinkage then, else
// `unknown`).
// `kind`: the row's workload kind, which picks an unknown codebase's shrinkage.
double held_out_log_correction(const HeldOutCorrections& h, std::size_t i, const CorrectionShrinkage& s,
                               const std::string& kind);
// The same as factors on the row's composed halves (Shrinkage::factors, times its codebase's offset
// when its fold trained on the codebase).
HalfFactors held_out_factors(const HeldOutCorrections& h, std::size_t i, const CorrectionShrinkage& s,
                             const std::string& kind);

// Shrinkage fitted on held-out splits' rows of a known (or an unknown) codebase: the grid point with
// the lowest mean of the splits' MAPE. For an unknown codebase each codebase counts once (a stack
// unlike the data is any one of them, not the one with the most rows), and where a codebase's MAPE
// exceeds the analytical answer's, the excess counts again: the learned level must not be worse than
// the analytical answer for a stack it has no data from.
struct ShrinkageFitRows {
  const std::vector<double>& composed;
  const std::vector<double>& analytical;
  const std::vector<double>& measured;
  const std::vector<std::string>& codebases;
};
// `fitted_on`: the rows the fit may read (one flag per row; empty: all).
Shrinkage fit_shrinkage(const std::vector<const HeldOutCorrections*>& splits, const ShrinkageFitRows& rows,
                        bool known_codebase, const std::vector<char>& fitted_on = {});

// A workload kind gets an unknown codebase's shrinkage of its own when its runs come from at least
// this many codebases: fitted without any one of them (the nested figures) it still sees four.
constexpr std::size_t kMinKindCodebases = 5;
// An unknown codebase's shrinkage on leave-one-codebase-out's held-out corrections `loco`: pooled
// (`out.unknown`) and for each workload kind of `kinds` (one per row) with kMinKindCodebases codebases
// (`out.unknown_by_kind`), each fitted on the rows flagged in `fitted_on` (empty: all).
void fit_unknown_shrinkage(const HeldOutCorrections& loco, const ShrinkageFitRows& rows,
                           const std::vector<std::string>& kinds, const std::vector<char>& fitted_on,
                           CorrectionShrinkage& out);

}  // namespace ptp::train
