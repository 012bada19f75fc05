#pragma once
// ThinSupportShares (thin_support.hpp) fitted on the held-out splits that hold a GPU or a precision
// out, and the figures that show what the correction earns on thin GPUs and precisions.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ptp/predict/learned/thin_support.hpp"
#include "ptp/train/stack_effects.hpp"

#include "ptp/train/vocabulary.hpp"

namespace ptp::train {

// Each row's GPU, its architecture, its precision and its workload kind.
struct ThinSupportRows {
  const std::vector<std::string>& gpus;
  const std::vector<std::string>& architectures;
  const std::vector<std::string>& precisions;
  const std::vector<std::string>& kinds;
};

// A thin architecture gets a GPU share of its own when it has at least this many GPUs with held-out
// rows (fitted without any one of them, it still sees one) and this many rows; others take the pooled.
constexpr std::size_t kMinArchitectureThinGpus = 2;
constexpr std::size_t kMinArchitectureThinRows = 100;

// Shares fitted on the held-out rows whose fold had thin support: for GPUs (an architecture none of
// whose GPUs has kThinSupportRuns runs in the fold) on leave-one-GPU-out (`logo`) and
// leave-one-codebase-out (`loco`), per architecture that `rows` as a whole calls thin (with
// kMinArchitectureThinGpus GPUs and kMinArchitectureThinRows rows held out alone) and pooled; for
// precisions on leave-one-precision-out (`lopo`) and `loco`, per precision the whole data calls thin
// and pooled. Each share is the grid point (0..1 by 0.05) with the lowest mean over its groups (one
// GPU's or precision's rows of one split) of MAPE plus its excess over the analytical answer's: the
// correction must not be worse than the analytical answer where its data is thin. `figures`: per GPU
// of a thin architecture and per precision, on leave-one-GPU-out / leave-one-precision-out,
// analytical, whole-correction, thin-share and nested (share fitted without the judged one) MAPE.
ThinSupportShares fit_thin_support(const HeldOutCorrections& logo, const HeldOutCorrections& lopo,
                                   const HeldOutCorrections& loco, const ShrinkageFitRows& rows,
                                   const ThinSupportRows& domains, const CorrectionShrinkage& shrinkage,
                                   nlohmann::json& figures);

// Rows per label (GPU, precision): the manifest's domain.gpu_runs / precision_runs.
std::map<std::string, int> counts_of(const std::vector<std::string>& labels);
// Per architecture, the rows of its best-supported GPU (domain.architecture_gpu_runs).
std::map<std::string, int> best_gpu_runs_by_architecture(const std::vector<std::string>& gpus,
                                                         const std::vector<std::string>& architectures);

// Sets each held-out row's support.thin_support_factor from its fold's run counts.
void apply_thin_support(HeldOutCorrections& h, const ThinSupportShares& shares, const ThinSupportRows& domains);

// The report's section on thin support (empty when `metrics` has none).
std::string thin_support_section(const nlohmann::json& metrics);

}  // namespace ptp::train
