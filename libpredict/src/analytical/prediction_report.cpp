// What a prediction reports besides time: model FLOPs utilisation against named peaks, and the
// placeholder row for a job that could not be predicted.
#include <cstdio>

#include "parallelism.hpp"

namespace ptp {

namespace {
std::string describe(const PeakBasis& b) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s dense %.1f TFLOP/s per GPU", b.math.c_str(), b.flops / 1e12);
  return buf;
}
}  // namespace

PeakBasis mfu_reference_peak(const GpuSpec& g) {
  for (const char* math : {"bf16", "fp16", "tf32", "fp32"})
    if (g.has_math(math)) return {math, g.peak_flops(math)};
  return {"fp32", g.peak_flops("fp32")};
}

PeakBasis precision_peak(const GpuSpec& g, const PrecisionPolicy& p) {
  for (const std::string& math : {p.gemm_math, p.fallback_math, std::string("fp32")})
    if (g.has_math(math)) return {math, g.peak_flops(math)};
  return {"fp32", g.peak_flops("fp32")};
}

void fill_mfu(const ResolvedJob& job, Prediction& out) {
  const double replicas = std::max(1, job.data_parallel);
  out.model_flops_per_step = model_flops_per_microbatch(job.workload) * job.job.grad_accum * replicas;
  const auto ref = mfu_reference_peak(*job.gpu), own = precision_peak(*job.gpu, *job.policy);
  const double gpu_seconds = out.iteration_s * job.job.cluster.num_gpus;
  out.mfu = ref.flops > 0 && gpu_seconds > 0 ? out.model_flops_per_step / (gpu_seconds * ref.flops) : 0;
  out.mfu_precision_peak = own.flops > 0 && gpu_seconds > 0 ? out.model_flops_per_step / (gpu_seconds * own.flops) : 0;
  out.mfu_peak_basis = describe(ref);
  out.mfu_precision_peak_basis = describe(own);
}

double implied_matmul_utilization(const ResolvedJob& job, double step_s) {
  const double flops = model_flops_per_microbatch(job.workload, false) * job.job.grad_accum *
                       std::max(1, job.data_parallel);
  const double peak = precision_peak(*job.gpu, *job.policy).flops;
  const double gpu_seconds = step_s * job.job.cluster.num_gpus;
  return peak > 0 && gpu_seconds > 0 ? flops / (gpu_seconds * peak) : 0;
}

Prediction invalid_prediction(const JobSpec& job, const std::string& error) {
  Prediction p;
  p.valid = false;
  p.error = error;
  p.model = job.model;
  p.precision = job.precision;
  p.gpu = job.cluster.gpu;
  p.framework = job.framework;
  p.num_gpus = job.cluster.num_gpus;
  p.grad_accum = job.grad_accum;
  p.batch_size = job.batch_size;
  p.seq_len = job.seq_len;
  p.predictor_kind = "none";
  p.memory.fits = false;
  const auto& par = job.parallelism;
  p.layout.tensor = par.tensor, p.layout.pipeline = par.pipeline, p.layout.virtual_pipeline = par.virtual_pipeline;
  p.layout.context = par.context, p.layout.expert = par.expert, p.layout.data = par.data;
  p.layout.sequence_parallel = par.sequence_parallel;
  p.layout.sharding = job.sharding;
  p.layout.activation_checkpointing = job.activation_checkpointing;
  return p;
}

}  // namespace ptp
