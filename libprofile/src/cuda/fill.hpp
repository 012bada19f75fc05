#pragma once
// Random input data for the CUDA benchmarks. Zero operands hide power-limited clocks (tensor cores
// draw far less power multiplying zeros), so every benchmark fills its inputs with a hash-based
// uniform in [lo, hi] converted to the benchmark's dtype (kernel_math.hpp), on the device.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {

// `count` elements of `dtype` (fp32, tf32 = fp32 storage, fp16, bf16, fp8_e4m3, fp8_e5m2) at `data`.
// Synchronous: returns when the data is written, so any stream sees it.
void fill_uniform(void* data, std::size_t count, const std::string& dtype, std::uint32_t seed, float lo = -1.0f,
                  float hi = 1.0f);

}  // namespace ptp::profile::cuda
