#pragma once
// Storage dtypes of the CUDA benchmarks. FP8 needs CUDA 11.8+ headers (guarded) and sm_89+ devices.
#include <library_types.h>

#include <string>

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {

struct CudaDtype {
  cudaDataType_t type;
  int bytes;
  int min_sm;  // x10
};

// fp32, tf32 (fp32 storage), fp16, bf16, fp8_e4m3, fp8_e5m2; InputError for others or FP8 on old CUDA.
CudaDtype cuda_dtype(const std::string& name, const std::string& where);
bool is_fp8(const std::string& name);

}  // namespace ptp::profile::cuda
