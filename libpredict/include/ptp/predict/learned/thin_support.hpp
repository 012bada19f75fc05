#pragma once
// How much of the learned correction a job keeps when few training runs share its GPU or its
// precision. The correction's speed of such a GPU or precision is the speed of the one or two sources
// that published it (FP4: one codebase's recipes; each Blackwell GPU: a few hundred runs of one
// stack), and on the splits that hold the GPU or the precision out it earns little or nothing over
// the analytical answer (docs/accuracy.md, "thin support"). So a thin GPU or precision keeps only
// the share those held-out rows show the correction earns: per GPU architecture (leave-one-GPU-out
// rows of the architecture's thin GPUs) and per precision (leave-one-precision-out rows), pooled
// where an architecture or precision has no fit of its own. Fitted by ptp-train, never set by hand.
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

// Fewer training runs than this make a precision thin, and a GPU thin when no GPU of its architecture
// has as many: under 5 % of the runs, one or two sources' worth. A GPU or precision no run used has
// zero. Thin by architecture, not by GPU: a GPU with few runs beside a well-supported sibling (an H200
// beside the H100) keeps the sibling's correction, which a step toward the analytical answer on the
// one and not the other would turn into a faster GPU predicting a slower step.
inline constexpr int kThinSupportRuns = 100;

struct ThinSupportShares {
  std::map<std::string, double> gpu_by_architecture;  // a thin GPU of this architecture
  double gpu_pooled = 1;                               // a thin GPU of any other architecture
  std::map<std::string, double> by_precision;          // a thin precision with a fit of its own
  double precision_pooled = 1;                         // any other thin precision
  bool fitted = false;                                 // bundles before it: every factor 1

  // The factor on a job's share of the correction: the GPU's share when its architecture is thin
  // (`architecture_gpu_runs`: training runs on the architecture's best-supported GPU), times the
  // precision's when it is.
  double factor(const std::string& architecture, int architecture_gpu_runs, const std::string& precision,
                int precision_runs) const;
  double gpu_share(const std::string& architecture) const;
  double precision_share(const std::string& precision) const;

  nlohmann::json to_json() const;
  // Throws InputError naming `path` and the field on anything malformed.
  static ThinSupportShares from_json(const nlohmann::json& j, const std::string& path);
};

}  // namespace ptp::predict
