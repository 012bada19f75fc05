// LayerNorm forward over the last dimension: one block per row, fp32 statistics (as AMP keeps them).
#include "../kernel_common.cuh"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {
namespace {

template <typename T>
__global__ void layernorm_kernel(const T* x, const float* gamma, const float* beta, T* y, int cols) {
  __shared__ float s_sum[32], s_sq[32];
  const T* row = x + static_cast<std::size_t>(blockIdx.x) * cols;
  float sum = 0, sq = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = to_f(row[c]);
    sum += v;
    sq += v * v;
  }
  for (int o = 16; o > 0; o /= 2) {
    sum += __shfl_xor_sync(0xffffffffu, sum, o);
    sq += __shfl_xor_sync(0xffffffffu, sq, o);
  }
  if (threadIdx.x % 32 == 0) s_sum[threadIdx.x / 32] = sum, s_sq[threadIdx.x / 32] = sq;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (unsigned w = 1; w < blockDim.x / 32; ++w) s_sum[0] += s_sum[w], s_sq[0] += s_sq[w];
  }
  __syncthreads();
  const float mean = s_sum[0] / cols;
  const float rstd = rsqrtf(fmaxf(s_sq[0] / cols - mean * mean, 0.0f) + 1e-5f);
  T* out = y + static_cast<std::size_t>(blockIdx.x) * cols;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = from_f<T>((to_f(row[c]) - mean) * rstd * gamma[c] + beta[c]);
}

class CudaLayerNorm final : public CudaOpsBench {
 public:
  std::string name() const override { return "cuda_layernorm"; }
  void run(const Point& p, Measurement& m) const override {
    const auto rows = static_cast<unsigned>(p.integer("rows"));
    const auto cols = static_cast<int>(p.integer("cols"));
    with_dtype(p.text("dtype"), [&](auto tag) {
      using T = decltype(tag);
      const std::size_t n = std::size_t{rows} * static_cast<std::size_t>(cols);
      DeviceBuffer x(n * sizeof(T)), y(n * sizeof(T)), g(sizeof(float) * cols), b(sizeof(float) * cols);
      fill_random<T>(x, n, 1);
      fill_random<float>(g, static_cast<std::size_t>(cols), 2);
      fill_random<float>(b, static_cast<std::size_t>(cols), 3);
      Stream s;
      measure_cuda(m, s.get(), [&] {
        layernorm_kernel<T><<<rows, 256, 0, s.get()>>>(x.get<T>(), g.get<float>(), b.get<float>(), y.get<T>(), cols);
      });
    });
  }
};

}  // namespace
PTP_REGISTER_MICROBENCH(CudaLayerNorm);
}  // namespace ptp::profile::cuda
