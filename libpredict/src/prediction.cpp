#include "ptp/predict/prediction.hpp"

namespace ptp {

void scale_prediction(Prediction& p, double factor) {
  // Every part takes the factor, so the parts still add up to the step and the model-parallel
  // lines to the exposed communication.
  p.breakdown.scale(factor);
  for (auto& layer : p.layers) layer.forward_s *= factor, layer.backward_s *= factor;
  for (auto& bucket : p.buckets) bucket.ready_s *= factor, bucket.duration_s *= factor;
  for (double* v : {&p.iteration_s, &p.iteration_low_s, &p.iteration_high_s, &p.total_seconds, &p.gpu_hours, &p.cost_usd})
    *v *= factor;
  for (double* v : {&p.samples_per_second, &p.tokens_per_second, &p.tokens_per_second_per_gpu, &p.mfu, &p.mfu_precision_peak})
    *v /= factor;
}

}  // namespace ptp
