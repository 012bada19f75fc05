#pragma once
// The math-mode table: what each math a precision policy, a GPU catalog entry or a kernel row names
// (fp32, tf32, fp16, bf16, fp8, fp4, fp16_nontensor) means to a kernel. Readers ask it instead of
// comparing names; a new math is one entry in math_mode.cpp.
#include <string>
#include <string_view>
#include <vector>

namespace ptp::vocab {

struct MathMode {
  std::string id;
  // Runs on the tensor cores (MMA). fp32 and fp16_nontensor (FP16 on a GPU without FP16 tensor
  // cores: V100-era consumer parts, the CUDA-core FP16 path) do not.
  bool tensor_core = false;
  // Bytes of one GEMM operand element as the kernel reads it (TF32 reads FP32 storage).
  double operand_bytes = 4;
  // A tensor-core GEMM runs at full rate when N and K are multiples of this many elements
  // (cuBLAS: 16 bytes of operand, 4 TF32 / 8 FP16 and BF16 / 16 FP8 and FP4 elements; FP16 on the
  // CUDA cores keeps FP16's 8, its half2 loads).
  int alignment_elements = 1;
  // The math whose kernel timings train this one's learned correction: BF16 and FP16 run the same
  // tensor-core kernels at the same rate, so BF16 rows and jobs are read as FP16.
  std::string trains_as;
  // FP32 GEMMs on the CUDA cores: operands at four bytes, the GPU's SIMT GEMM share of its peak.
  bool fp32_simt() const { return !tensor_core && operand_bytes == 4; }
  // A 16-bit tensor-core math (FP16, BF16): cuDNN's convolutions for it work channels-last.
  bool tensor_core_16bit() const { return tensor_core && operand_bytes == 2; }
};

const std::vector<MathMode>& math_mode_table();
const MathMode* find_math_mode(std::string_view id);
// InputError naming the known maths for any other.
const MathMode& math_mode(std::string_view id);

}  // namespace ptp::vocab
