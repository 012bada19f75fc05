#include "cuda_dtypes.hpp"

#include <cuda_runtime_api.h>

#include "ptp/vocab/error.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {

bool is_fp8(const std::string& name) { return name == "fp8_e4m3" || name == "fp8_e5m2"; }

CudaDtype cuda_dtype(const std::string& name, const std::string& where) {
  if (name == "fp32" || name == "tf32") return {CUDA_R_32F, 4, name == "tf32" ? 80 : 0};
  if (name == "fp16") return {CUDA_R_16F, 2, 0};
  if (name == "bf16") return {CUDA_R_16BF, 2, 80};
#if CUDART_VERSION >= 11080
  if (name == "fp8_e4m3") return {CUDA_R_8F_E4M3, 1, 89};
  if (name == "fp8_e5m2") return {CUDA_R_8F_E5M2, 1, 89};
#else
  if (is_fp8(name)) throw InputError(where + ": FP8 needs a CUDA 11.8+ build of ptp-profile");
#endif
  throw InputError(where + ": dtype must be fp32, tf32, fp16, bf16, fp8_e4m3 or fp8_e5m2, got '" + name + "'");
}

}  // namespace ptp::profile::cuda
