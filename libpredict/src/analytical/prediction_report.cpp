// What a prediction reports besides time: model FLOPs utilisation against named peaks, and the
// placeholder row for a job that could not be predicted.
#include <cstdio>

#include "ptp/predict/detail/parallelism.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {
std::string describe(const PeakBasis& b) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s dense %.1f TFLOP/s per GPU", b.math.c_str(), b.flops / 1e12);
  return buf;
}
// Model FLOPs of one optimizer step: every micro-batch on every data-parallel replica.
double model_flops_per_step(const ResolvedJob& job, bool include_conv) {
  const double per_microbatch =
      job.shared && include_conv ? job.shared->model_flops : model_flops_per_microbatch(job.work(), include_conv);
  return per_microbatch * job.job.grad_accum * std::max(1, job.data_parallel);
}
double utilization(const ResolvedJob& job, double flops_per_step, double step_s, double peak_flops) {
  const double gpu_seconds = step_s * job.job.cluster.num_gpus;
  return peak_flops > 0 && gpu_seconds > 0 ? flops_per_step / (gpu_seconds * peak_flops) : 0;
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
  out.model_flops_per_step = model_flops_per_step(job, true);
  const auto ref = mfu_reference_peak(*job.gpu), own = precision_peak(*job.gpu, *job.policy);
  out.mfu = utilization(job, out.model_flops_per_step, out.iteration_s, ref.flops);
  out.mfu_precision_peak = utilization(job, out.model_flops_per_step, out.iteration_s, own.flops);
  out.mfu_peak_basis = describe(ref);
  out.mfu_precision_peak_basis = describe(own);
  out.model_flops_basis = model_flops_basis(job.job.finetune);
  const double all = job.shared ? job.shared->model_flops : model_flops_per_microbatch(job.work(), true);
  const double attention = job.shared ? job.shared->attention_model_flops : attention_model_flops_per_microbatch(job.work());
  out.model_flops_attention_share = all > 0 ? attention / all : 0;
}

std::string model_flops_basis(const FinetuneSpec& finetune) {
  static const std::string attention =
      " + 12 x layers x seq_len x attention width x tokens (attention not halved for causal masks)";
  if (!finetune.lora())
    return "3 x forward FLOPs of the GEMM, conv and RNN ops (6 x matmul params (active) x tokens for "
           "transformers)" + attention;
  // A frozen base GEMM runs forward and data gradient only (model_flops_per_microbatch).
  return "3 x forward FLOPs of the trained (adapter) GEMMs, 2 x those of the frozen base GEMMs that pass a "
         "gradient on, 1 x the rest (about 4 x base matmul params (active) + 6 x adapter params, x tokens for "
         "transformers)" + attention;
}

double implied_matmul_utilization(const ResolvedJob& job, double step_s) {
  return utilization(job, model_flops_per_step(job, false), step_s, precision_peak(*job.gpu, *job.policy).flops);
}

Prediction invalid_prediction(const JobSpec& job, const std::string& error) {
  Prediction p;
  p.valid = false;
  p.error = error;
  p.model = job.model;
  p.precision = job.precision;
  p.gpu = job.cluster.gpu;
  p.framework = name_of(framework_names(), job.framework);
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

}  // namespace ptp::predict
