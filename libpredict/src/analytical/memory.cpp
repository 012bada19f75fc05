// Per-GPU memory: weights (+ FP32 master copy), gradients, optimizer state, stashed activations of
// one micro-batch, and a fixed workspace. Sharding divides the per-parameter terms.
#include <algorithm>

#include "ptp/predict/analytical.hpp"

namespace ptp {

namespace {
double optimizer_states(const std::string& opt) {
  if (opt == "sgd") return 0;
  if (opt == "momentum") return 1;
  return 2;  // adam, adamw, lamb
}
}  // namespace

MemoryEstimate estimate_memory(const ResolvedJob& job, const AnalyticalConstants& k) {
  const auto& p = *job.policy;
  const auto& j = job.job;
  const double params = job.workload.params();
  const double dp = std::max(1, job.data_parallel);
  const std::string& s = j.sharding;
  const double opt_div = (s == "zero1" || s == "zero2" || s == "zero3" || s == "fsdp" || s == "hsdp") ? dp : 1;
  const double grad_div = (s == "zero2" || s == "zero3" || s == "fsdp" || s == "hsdp") ? dp : 1;
  const double weight_div = (s == "zero3" || s == "fsdp" || s == "hsdp") ? dp : 1;
  MemoryEstimate m;
  m.weights = params * p.param_bytes / weight_div;
  m.gradients = params * p.grad_bytes / grad_div;
  m.optimizer_state = params * (optimizer_states(j.optimizer) * p.optimizer_state_bytes + p.master_weight_bytes) / opt_div;
  double act_factor = 1.0;
  if (j.activation_checkpointing == "full") act_factor = 1.0 / std::max(1, job.workload.layers) * 2;
  else if (j.activation_checkpointing == "selective") act_factor = 0.7;
  m.activations = job.workload.saved_elements() * p.activation_bytes * act_factor;
  m.workspace = k.workspace_bytes;
  m.per_gpu_bytes = m.weights + m.gradients + m.optimizer_state + m.activations + m.workspace;
  m.capacity_bytes = job.gpu->memory_bytes();
  m.fits = m.per_gpu_bytes <= m.capacity_bytes * 0.95;
  return m;
}

}  // namespace ptp
