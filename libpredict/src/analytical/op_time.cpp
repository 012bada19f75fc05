// Per-op roofline with efficiency curves at the precision policy's math mode and element sizes.
#include <algorithm>
#include <cmath>

#include "ptp/predict/analytical.hpp"

#include "ptp/vocab/math_mode.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {

// torch.compile and the like (compile: true) on an eager framework: Inductor fuses the same chains.
bool torch_compiled(const JobSpec& j) { return !graph_compiled(j) && j.compile.value_or(false); }
bool fuses_into_chain(const Op& op) { return op.kind == OpKind::elementwise || op.kind == OpKind::norm; }
// Share of an elementwise or norm op's memory traffic left when the compiler fuses it into its chain
// (the intermediate tensors between fused ops are neither written nor read back).
constexpr double kFusedChainTraffic = 0.4;
// Share of the host launch time left when a graph compiler launches fused kernels.
constexpr double kCompiledLaunchShare = 0.25;

}  // namespace

bool op_kept_16bit(const Op& op, const ResolvedJob& job) { return op.high_precision && job.policy->fp8_scaling; }

std::string op_math_mode(const Op& op, const ResolvedJob& job) {
  const auto& p = *job.policy;
  const auto& g = *job.gpu;
  if (!op.uses_gemm_math) return "fp32";
  std::string math = (op.kind == OpKind::attention_bmm || op.kind == OpKind::fused_attention) ? p.attention_math
                     : op_kept_16bit(op, job)                                                   ? p.half_dtype
                                                                                                : p.gemm_math;
  if (!g.has_math(math)) math = p.fallback_math;
  if (!g.has_math(math)) math = "fp32";
  return math;
}

double op_element_bytes(const Op& op, const ResolvedJob& job) {
  const auto& p = *job.policy;
  switch (op.kind) {
    case OpKind::norm:
      // Batch norm is on neither autocast's FP32 list nor TF/MXNet AMP's: cuDNN takes half-precision
      // activations with FP32 statistics. Layer/RMS norms are promoted to FP32.
      return op.batch_norm ? p.elementwise_bytes : p.norm_softmax_bytes;
    case OpKind::softmax:
    case OpKind::loss:
      return p.norm_softmax_bytes;
    case OpKind::elementwise:
    case OpKind::pooling:
      return p.elementwise_bytes;
    case OpKind::embedding:
      // A lookup gathers rows of the weights as stored: autocast leaves embeddings alone, so under
      // AMP the gathered rows (and their gradients) stay FP32.
      return job.state.forward_weight;
    case OpKind::gemm:
    case OpKind::attention_bmm:
    case OpKind::fused_attention:
    case OpKind::conv:
    case OpKind::rnn:
      break;
  }
  return op_kept_16bit(op, job) ? p.activation_bytes : p.gemm_io_bytes;
}

namespace {


// Square kernel area of a conv seen through its implicit-GEMM shape: k * groups * m / elements_in
// is kernel^2 * (output / input pixels), i.e. kernel^2 at stride 1 (9 for a 3x3, stride-1 conv).
double conv_kernel_area_stride1(const Op& op) {
  return op.elements_in > 0 ? op.k * std::max(1.0, op.batch) * op.m / op.elements_in : 0;
}

// cuDNN runs dense 3x3 stride-1 convs at FP32 (SIMT) math with Winograd transforms, which do fewer
// multiplies than the direct/implicit-GEMM FLOP count; tensor-core paths use implicit GEMM.
bool winograd_eligible(const Op& op) {
  return op.kind == OpKind::conv && op.batch <= 1 && std::abs(conv_kernel_area_stride1(op) - 9.0) < 0.5;
}

// Depthwise conv (one output channel per group): per-channel stencils with no data reuse across
// channels; cuDNN/PyTorch kernels (and their weight-gradient reductions) reach a fraction of the
// bandwidth a streaming elementwise pass does.
bool depthwise(const Op& op) { return op.kind == OpKind::conv && op.batch > 1 && op.n <= 1; }

double saturating(double emax, double work, double rate, double t_half) {
  return emax * work / (work + rate * t_half);
}

}  // namespace

double tensor_core_power_derating(const GpuSpec& g, const AnalyticalConstants& k) {
  if (g.tdp_w <= 0) return 1.0;
  const double flops_per_w = mfu_reference_peak(g).flops / g.tdp_w;
  return std::pow(std::max(1.0, flops_per_w / k.tc_power_ref_flops_per_w), -k.tc_power_exponent);
}

double gemm_peak_flops(const GpuSpec& g, const std::string& math) {
  return g.peak_flops(math) * (math_mode(math).fp32_simt() ? g.simt_fp32_gemm_share() : 1.0);
}

double tensor_core_emax(double base_emax, double n, double k_dim, const std::string& math, const GpuSpec& g,
                        const AnalyticalConstants& k) {
  const double multiple = math_mode(math).alignment_elements;
  const bool aligned = std::fmod(n, multiple) == 0 && std::fmod(k_dim, multiple) == 0;
  return base_emax * (aligned ? 1.0 : k.misaligned_tensor_core_factor) * tensor_core_power_derating(g, k);
}

namespace {
// Ampere-style fused attention leaves sm_90+'s asynchronous tensor cores unused.
double attention_kernel_factor(const ResolvedJob& job, const AnalyticalConstants& k) {
  const AttentionKernel* a = job.state.attention_kernel;
  const bool native = !a || a->architecture_native || job.gpu->sm_version() < kAsyncTensorCoreSm;
  return native ? 1.0 : k.flash2_async_tensor_core_factor;
}
// A row-wise FP8 recipe's scaled GEMMs run at the 16-bit rate (fp8_recipe.hpp); their operands
// stay FP8, so only the rate changes.
const std::string& gemm_rate_math(const Op& op, const ResolvedJob& job, const std::string& math) {
  const auto& p = *job.policy;
  const bool slow_fp8 = job.fp8_recipe && job.fp8_recipe->gemms_at_16bit_rate && op.kind == OpKind::gemm &&
                        math == p.gemm_math && job.gpu->has_math(p.half_dtype);
  return slow_fp8 ? p.half_dtype : math;
}
}  // namespace

double saturating_kernel_seconds(double flops, double bytes, double peak, double emax_compute, double emax_memory,
                                 const GpuSpec& g, const AnalyticalConstants& k) {
  double compute = 0;
  if (flops > 0 && emax_compute > 0 && peak > 0)
    compute = flops / (peak * saturating(emax_compute, flops, peak, k.gemm_t_half_s));
  else if (flops > 0)
    compute = flops / (g.peak_flops("fp32") * 0.5);
  const double bw = g.bandwidth_bytes_per_s();
  const double memory = bytes > 0 ? bytes / (bw * saturating(emax_memory, bytes, bw, k.memory_t_half_s)) : 0;
  return std::max(compute, memory);
}

OpTime analytical_op_time(const Op& op, const ResolvedJob& job, const AnalyticalConstants& k) {
  const auto& p = *job.policy;
  const auto& g = *job.gpu;
  const double reps = std::max(1.0, op.repeats);
  OpTime t;

  double fwd_bytes = 0;
  double transpose_bytes = 0;  // NCHW <-> NHWC passes around a conv, forward
  double emax_compute = 0;
  double peak = g.peak_flops("fp32");
  switch (op.kind) {
    case OpKind::gemm:
    case OpKind::attention_bmm:
    case OpKind::fused_attention:
    case OpKind::conv:
    case OpKind::rnn: {
      const std::string math = op_math_mode(op, job);
      const MathMode& mode = math_mode(math);
      const bool tensor_core = mode.tensor_core;
      peak = gemm_peak_flops(g, gemm_rate_math(op, job, math));
      const double io = mode.fp32_simt() ? 4.0 : op_element_bytes(op, job);
      fwd_bytes = (op.elements_in + op.elements_out + op.params) * io;
      // cuDNN's 16-bit tensor-core conv kernels work channels-last: on a channels-first (NCHW) tensor
      // each conv transposes its input in and its output back, two extra read+write passes. TF32 and
      // FP32 convs have native NCHW kernels (charging TF32 too made NCHW TF32 rows 1.3-1.5x too slow).
      if (op.kind == OpKind::conv && mode.tensor_core_16bit() && channels_first(job.job) && !depthwise(op))
        transpose_bytes = 2 * (op.elements_in + op.elements_out) * p.gemm_io_bytes;
      // Convs run as implicit GEMMs and share the GEMM efficiency; what costs them more (NCHW
      // transposes, depthwise stencils) is charged separately.
      if (op.kind == OpKind::attention_bmm) emax_compute = k.attention_emax;
      else if (op.kind == OpKind::fused_attention) emax_compute = k.fused_attention_emax * attention_kernel_factor(job, k);
      else if (op.kind == OpKind::rnn) emax_compute = k.rnn_emax;
      else emax_compute = tensor_core ? k.gemm_tc_emax : k.gemm_simt_emax;
      if (tensor_core) emax_compute = tensor_core_emax(emax_compute, op.n, op.k, math, g, k);
      if (!tensor_core && winograd_eligible(op)) {
        const double pixels_per_sample = op.m / std::max(1.0, job.work().samples);
        emax_compute *= pixels_per_sample >= k.winograd_large_map_pixels ? k.winograd_large_map_speedup
                                                                         : k.winograd_simt_speedup;
      }
      break;
    }
    case OpKind::norm:
    case OpKind::softmax:
    case OpKind::loss:
    case OpKind::elementwise:
    case OpKind::pooling:
      fwd_bytes = (op.elements_in + op.elements_out) * op_element_bytes(op, job);
      break;
    case OpKind::embedding:
      fwd_bytes = op.elements_out * op_element_bytes(op, job) + op.m * 8;  // rows gathered + int64 indices
      break;
  }
  // A kernel chain with its own traffic (KernelTraffic): its activations at the policy's dtype.
  if (op.traffic.set()) fwd_bytes = op.traffic.fwd * p.activation_bytes + op.traffic.fwd_fp32 * 4;
  // XLA and JAX fuse elementwise chains into their producers.
  if (graph_compiled(job.job) && fuses_into_chain(op)) fwd_bytes *= kFusedChainTraffic;

  auto kernel_time = [&](double flops, double bytes, double emax_mem) {
    return reps * saturating_kernel_seconds(flops / reps, bytes / reps, peak, emax_compute, emax_mem, g, k);
  };
  double emax_mem = op.kind == OpKind::embedding ? k.gather_emax : k.memory_emax;
  if (depthwise(op)) emax_mem *= k.depthwise_memory_factor;
  t.forward_s = kernel_time(op.fwd_flops, fwd_bytes, emax_mem);
  if (k.op_model) {
    if (const double learned = k.op_model->seconds(op, job, false, t.forward_s); learned >= 0)
      t.forward_s = t.forward_learned_s = learned;
  }
  // Backward reads the output gradient and the saved input, writes the input (and weight) gradients.
  // A frozen weight's backward is the data gradient alone (or nothing on the raw input).
  double bwd_bytes = op.frozen ? (op.bwd_flops > 0 ? fwd_bytes : 0) : 2 * fwd_bytes;
  if (op.traffic.set()) bwd_bytes = op.traffic.bwd * p.activation_bytes + op.traffic.bwd_fp32 * 4;
  t.backward_s = kernel_time(op.bwd_flops, bwd_bytes, emax_mem);
  if (k.op_model) {
    if (const double learned = k.op_model->seconds(op, job, true, t.backward_s); learned >= 0)
      t.backward_s = t.backward_learned_s = learned;
  }

  const double transposes = kernel_time(0, transpose_bytes, k.memory_emax);
  t.forward_s += transposes;
  // Data and weight gradients each transpose their two operands; a frozen weight has no weight gradient.
  t.backward_s += (op.frozen ? (op.input_grad ? 1 : 0) : 2) * transposes;

  // A replayed CUDA graph launches its kernels from the GPU: no host launch per kernel.
  double launch_scale = 1.0;
  if (job.job.cuda_graphs.value_or(false)) launch_scale = 0;
  else if (graph_compiled(job.job) || torch_compiled(job.job)) launch_scale = kCompiledLaunchShare;
  else if (job.job.framework == Framework::tensorflow || job.job.framework == Framework::mxnet) launch_scale = 0.6;
  // Compiled on an eager framework, whatever timed the op (analytical or learned kernels) timed it
  // unfused: the fused chain moves a share of that traffic.
  if (torch_compiled(job.job) && fuses_into_chain(op))
    for (double* s : {&t.forward_s, &t.backward_s, &t.forward_learned_s, &t.backward_learned_s}) *s *= kFusedChainTraffic;
  double bwd_kernels = reps * (op.uses_gemm_math && op.input_grad ? 2 : 1);
  if (op.frozen) bwd_kernels = op.bwd_flops > 0 ? reps : 0;  // the data gradient, or nothing
  const double fwd_kernels = reps;
  t.forward_launch_s = fwd_kernels * k.launch_overhead_fwd_s * launch_scale;
  t.backward_launch_s = bwd_kernels * k.launch_overhead_bwd_s * launch_scale;
  return t;
}

}  // namespace ptp::predict
