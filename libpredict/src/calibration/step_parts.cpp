// The predicted step as the four parts calibration corrects (calibration.hpp).
#include <algorithm>

#include "ptp/predict/calibration.hpp"
#include "ptp/vocab/precision.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

std::string gemm_math_class(const std::string& precision_id) {
  const PrecisionPolicy* p = find_precision_policy(precision_id);
  return p ? p->gemm_class : precision_id;
}

StepParts step_parts(const Prediction& p) {
  const auto& b = p.breakdown;
  StepParts s;
  s.gemm_class = gemm_math_class(p.precision);
  // Kernel time on the critical path: forward (which holds the casts and the host overhead not
  // hidden behind kernels), backward, recomputation and the pipeline bubble, which idles the
  // stage for a share of the same kernels.
  const double host = std::max(0.0, b.framework_overhead);
  const double kernels = std::max(0.0, b.forward + b.backward + b.recompute + b.pp_bubble - host - b.precision_casts);
  s.gemm = kernels * p.gemm_math_share;
  s.memory_bound = kernels * (1 - p.gemm_math_share) + b.precision_casts + b.optimizer + b.loss_scaling;
  s.communication = std::max(0.0, b.communication_exposed);
  s.communication_hidden = std::max(0.0, b.communication - b.communication_exposed);
  s.host = host;
  // The rest of the step (a fixed per-step cost, and whatever a learned correction did not assign
  // to the breakdown) is host time; when the parts overshoot the step, they are scaled to it.
  const double sum = s.gemm + s.memory_bound + s.communication + s.host;
  if (p.iteration_s > sum) {
    s.host += p.iteration_s - sum;
  } else if (sum > 0) {
    s.scale(p.iteration_s / sum);
  }
  return s;
}

}  // namespace ptp::predict
