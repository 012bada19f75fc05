#include "ptp/predict/prediction.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

void scale_prediction_halves(Prediction& p, double invariant, double sharded) {
  auto& b = p.breakdown;
  const double optimizer = b.optimizer, dp = b.dp_communication;
  const double before = p.iteration_s;
  const double after = (before - optimizer - dp) * invariant + (optimizer + dp) * sharded;
  const double whole = before > 0 && after > 0 ? after / before : invariant;
  // Data-parallel traffic takes the sharded factor, hidden or not: all of it where the bucket schedule
  // timed it (the buckets sum to it), else the exposed part the step knows apart.
  double dp_traffic = 0;
  for (const auto& bucket : p.buckets) dp_traffic += bucket.duration_s;
  if (p.buckets.empty()) dp_traffic = dp;
  const double exposed_other = b.communication_exposed - dp, total_other = b.communication - dp_traffic;
  scale_prediction(p, whole);  // the band, totals, throughput and MFU follow the step's new length
  // scale_prediction gave every part `whole`; the halves then take their own factors.
  b.scale(invariant / whole);
  b.optimizer = optimizer * sharded;
  b.dp_communication = dp * sharded;
  b.communication_exposed = exposed_other * invariant + b.dp_communication;
  b.communication = total_other * invariant + dp_traffic * sharded;
  for (auto& layer : p.layers) layer.forward_s *= invariant / whole, layer.backward_s *= invariant / whole;
  for (auto& bucket : p.buckets) bucket.ready_s *= invariant / whole, bucket.duration_s *= sharded / whole;
}

void scale_prediction(Prediction& p, double factor) {
  // Every part takes the factor, so the parts still add up to the step and the model-parallel
  // lines to the exposed communication.
  p.breakdown.scale(factor);
  for (auto& layer : p.layers) layer.forward_s *= factor, layer.backward_s *= factor;
  for (auto& bucket : p.buckets) bucket.ready_s *= factor, bucket.duration_s *= factor;
  for (double* v : {&p.iteration_s, &p.iteration_low_s, &p.iteration_high_s}) *v *= factor;
  refresh_totals(p);
  for (double* v : {&p.samples_per_second, &p.tokens_per_second, &p.tokens_per_second_per_gpu, &p.mfu, &p.mfu_precision_peak})
    *v /= factor;
}

void refresh_totals(Prediction& p) {
  p.total_seconds = p.total_steps * p.iteration_s + p.eval_seconds + p.checkpoint_seconds;
  p.gpu_hours = p.total_seconds / 3600.0 * p.num_gpus;
  p.cost_usd = p.has_cost ? p.gpu_hours * p.price.usd_per_gpu_hour : 0;
}

double total_high_seconds(const Prediction& p) {
  return p.total_steps * p.iteration_high_s + p.eval_seconds + p.checkpoint_seconds;
}

}  // namespace ptp::predict
