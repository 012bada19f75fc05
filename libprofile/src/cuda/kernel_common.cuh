#pragma once
// Shared helpers for the hand-written memory-bound kernels: dtype dispatch (fp32/fp16/bf16 storage,
// fp32 math), grid sizing, and the base class (the Work descriptions are in cuda_work.cpp).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <string>

#include "ptp/profile/detail/cuda_work.hpp"
#include "ptp/profile/detail/kernel_math.hpp"
#include "cuda_measure.hpp"
#include "fill.hpp"
#include "ptp/profile/microbenchmark.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {

template <typename T> __device__ __forceinline__ float to_f(T x) { return static_cast<float>(x); }
template <> __device__ __forceinline__ float to_f<__half>(__half x) { return __half2float(x); }
template <> __device__ __forceinline__ float to_f<__nv_bfloat16>(__nv_bfloat16 x) { return __bfloat162float(x); }
template <typename T> __device__ __forceinline__ T from_f(float x) { return static_cast<T>(x); }
template <> __device__ __forceinline__ __half from_f<__half>(float x) { return __float2half(x); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float x) { return __float2bfloat16(x); }

// N elements of T moved as one aligned vector (16 bytes when N = 16 / sizeof(T)): the hand-written
// kernels load and store whole Packs over vec_split(n, N).vectors and finish with a scalar tail.
template <typename T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};
template <typename T>
constexpr int kVec = kernel_math::vec_elems(static_cast<int>(sizeof(T)));

template <typename T, int N>
__device__ __forceinline__ Pack<T, N> load_pack(const T* p, std::size_t vec) {
  return reinterpret_cast<const Pack<T, N>*>(p)[vec];
}
template <typename T, int N>
__device__ __forceinline__ void store_pack(T* p, std::size_t vec, const Pack<T, N>& v) {
  reinterpret_cast<Pack<T, N>*>(p)[vec] = v;
}
__device__ __forceinline__ std::size_t thread_index() { return blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; }
__device__ __forceinline__ std::size_t thread_count() { return std::size_t{gridDim.x} * blockDim.x; }

// Dtype name of a storage type, for fill_uniform.
template <typename T> inline const char* dtype_name();
template <> inline const char* dtype_name<float>() { return "fp32"; }
template <> inline const char* dtype_name<__half>() { return "fp16"; }
template <> inline const char* dtype_name<__nv_bfloat16>() { return "bf16"; }

// Random inputs in [lo, hi] (zeros would hide power-limited clocks); `seed` tells buffers apart.
template <typename T>
void fill_random(DeviceBuffer& b, std::size_t n, std::uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  fill_uniform(b.get(), n, dtype_name<T>(), seed, lo, hi);
}

// Calls f(T{}) with the storage type named by `dtype`.
template <typename F>
void with_dtype(const std::string& dtype, F&& f) {
  if (dtype == "fp32") return f(float{});
  if (dtype == "fp16") return f(__half{});
  if (dtype == "bf16") {
    require_sm(80, "bf16");
    return f(__nv_bfloat16{});
  }
  throw InputError("dtype must be fp32, fp16 or bf16, got '" + dtype + "'");
}

inline unsigned grid_1d(std::size_t n, unsigned block = 256) {
  return static_cast<unsigned>(std::min<std::size_t>((n + block - 1) / block, 65535u * 8u));
}

// Grid for a vectorised kernel over n elements in vectors of `width`.
inline unsigned grid_vec(std::size_t n, int width, unsigned block = 256) {
  return grid_1d(std::max<std::size_t>(n / static_cast<std::size_t>(width), 1), block);
}

// Base for single-kernel-family benchmarks of the CUDA backend writing ops rows. Their axes and the
// Work of a point are CPU code (cuda_work.cpp), shared with builds that only plan.
class CudaOpsBench : public Microbenchmark {
 public:
  Backend backend() const override { return Backend::cuda; }
  Table table() const override { return Table::ops; }
  std::vector<AxisSpec> axes() const override { return cuda_work::spec(name()).axes(); }
  Work describe(const Point& p) const override { return cuda_work::spec(name()).describe(p); }
};

}  // namespace ptp::profile::cuda
