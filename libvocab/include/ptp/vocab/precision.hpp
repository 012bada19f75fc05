#pragma once
// The precision-policy table: what each training precision mode really does per op class. This is
// the predictor's knowledge of precision and the profiler's list of dtypes; a new precision mode is
// one entry in precision.cpp.
#include <string>
#include <string_view>
#include <vector>

namespace ptp::vocab {

struct PrecisionPolicy {
  std::string id;            // job-spec name: fp32, tf32, fp16, bf16, amp_fp16, amp_bf16, fp8, fp4
  std::string description;
  // Math modes name a key of a GPU's peak_tflops table.
  std::string gemm_math;       // GEMMs and convolutions
  std::string attention_math;  // batched GEMMs inside attention (FP8 recipes keep these in BF16)
  std::string fallback_math;   // used when the GPU lacks gemm_math at full rate (e.g. no tensor cores)
  // Bytes per element moved by each op class at this policy.
  double gemm_io_bytes;        // GEMM/conv operands and outputs
  double elementwise_bytes;    // activations, dropout, residual adds
  double norm_softmax_bytes;   // layer norm/softmax/loss I/O (autocast keeps these in FP32)
  double activation_bytes;     // activations stashed for backward
  // Which copies of the training state exist, and at which dtype, is the memory convention's
  // (memory_convention.hpp); the policy only names its default.
  double comm_bytes;           // gradient all-reduce element size
  // Extra per-step work.
  bool weight_cast_each_step;  // autocast re-casts FP32 weights to half each forward
  bool dynamic_loss_scaling;   // scale loss, unscale grads, inf/nan check, skip on overflow
  bool fp8_scaling;            // per-tensor amax history + scale + cast around each FP8 GEMM
  bool uses_tensor_cores;
  bool half_precision;         // 16-bit or narrower compute anywhere
  int min_compute_capability;  // x10: 80 means sm_80
  std::string comm_dtype;      // for collectives rows: fp32 | fp16 | bf16
  // What readers of a policy used to infer from its id or math name:
  bool autocast;               // amp_*: FP32 weights, the framework's autocast picks each op's dtype
  std::string half_dtype;      // a tensor it keeps in 16 bits is fp16 or bf16 (bf16 for fp32/tf32)
  std::string gemm_class;      // calibration's GEMM class: fp16 and bf16 math share fp16_bf16
};

const std::vector<PrecisionPolicy>& precision_table();
// Throws InputError naming the valid ids (and the nearest one) for an unknown id.
const PrecisionPolicy& precision_policy(std::string_view id);
const PrecisionPolicy* find_precision_policy(std::string_view id);
std::vector<std::string> precision_ids();

// Element size of a storage dtype name (fp32, tf32, fp16, bf16, fp8, fp8_e4m3, fp8_e5m2, fp4, int8).
double dtype_bytes(std::string_view dtype);

}  // namespace ptp::vocab
