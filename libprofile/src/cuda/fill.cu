#include "fill.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#if CUDART_VERSION >= 11080
#include <cuda_fp8.h>
#endif

#include <algorithm>

#include "ptp/profile/detail/kernel_math.hpp"
#include "cuda_check.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {
namespace {

enum class Kind { f32, f16, bf16, e4m3, e5m2 };

template <Kind K>
__global__ void fill_kernel(void* data, std::size_t n, std::uint32_t seed, float lo, float hi) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    const float x = kernel_math::uniform(i, seed, lo, hi);
    if constexpr (K == Kind::f32) static_cast<float*>(data)[i] = x;
    if constexpr (K == Kind::f16) static_cast<__half*>(data)[i] = __float2half(x);
    if constexpr (K == Kind::bf16) static_cast<__nv_bfloat16*>(data)[i] = __float2bfloat16(x);
#if CUDART_VERSION >= 11080
    if constexpr (K == Kind::e4m3) static_cast<__nv_fp8_storage_t*>(data)[i] = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
    if constexpr (K == Kind::e5m2) static_cast<__nv_fp8_storage_t*>(data)[i] = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2);
#endif
  }
}

template <Kind K>
void launch(void* data, std::size_t n, std::uint32_t seed, float lo, float hi) {
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((n + 255) / 256, 4096));
  fill_kernel<K><<<blocks, 256>>>(data, n, seed, lo, hi);
}

}  // namespace

void fill_uniform(void* data, std::size_t count, const std::string& dtype, std::uint32_t seed, float lo, float hi) {
  if (count == 0) return;
  if (dtype == "fp32" || dtype == "tf32") launch<Kind::f32>(data, count, seed, lo, hi);
  else if (dtype == "fp16") launch<Kind::f16>(data, count, seed, lo, hi);
  else if (dtype == "bf16") launch<Kind::bf16>(data, count, seed, lo, hi);
#if CUDART_VERSION >= 11080
  else if (dtype == "fp8_e4m3") launch<Kind::e4m3>(data, count, seed, lo, hi);
  else if (dtype == "fp8_e5m2") launch<Kind::e5m2>(data, count, seed, lo, hi);
#endif
  else throw InputError("fill_uniform: no device fill for dtype '" + dtype + "'");
  PTP_CUDA_CHECK(cudaGetLastError());
  PTP_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace ptp::profile::cuda
