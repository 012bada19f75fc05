// Row softmax (attention scores): one block per row, max and sum passes in fp32.
#include <cfloat>

#include "../kernel_common.cuh"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {
namespace {

__device__ float block_reduce(float v, bool is_max) {
  __shared__ float s[32];
  for (int o = 16; o > 0; o /= 2) {
    const float other = __shfl_xor_sync(0xffffffffu, v, o);
    v = is_max ? fmaxf(v, other) : v + other;
  }
  __syncthreads();
  if (threadIdx.x % 32 == 0) s[threadIdx.x / 32] = v;
  __syncthreads();
  float r = s[0];
  for (unsigned w = 1; w < blockDim.x / 32; ++w) r = is_max ? fmaxf(r, s[w]) : r + s[w];
  return r;
}

template <typename T>
__global__ void softmax_kernel(const T* x, T* y, int cols) {
  const T* row = x + static_cast<std::size_t>(blockIdx.x) * cols;
  T* out = y + static_cast<std::size_t>(blockIdx.x) * cols;
  float mx = -FLT_MAX;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) mx = fmaxf(mx, to_f(row[c]));
  mx = block_reduce(mx, true);
  float sum = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += __expf(to_f(row[c]) - mx);
  sum = block_reduce(sum, false);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = from_f<T>(__expf(to_f(row[c]) - mx) / sum);
}

class CudaSoftmax final : public CudaOpsBench {
 public:
  std::string name() const override { return "cuda_softmax"; }
  void run(const Point& p, Measurement& m) const override {
    const auto rows = static_cast<unsigned>(p.integer("rows"));
    const auto cols = static_cast<int>(p.integer("cols"));
    with_dtype(p.text("dtype"), [&](auto tag) {
      using T = decltype(tag);
      const std::size_t n = std::size_t{rows} * static_cast<std::size_t>(cols);
      DeviceBuffer x(n * sizeof(T)), y(n * sizeof(T));
      fill_random<T>(x, n, 1, -8.0f, 8.0f);  // attention-score-like spread
      Stream s;
      measure_cuda(m, s.get(), [&] { softmax_kernel<T><<<rows, 256, 0, s.get()>>>(x.get<T>(), y.get<T>(), cols); });
    });
  }
};

}  // namespace
PTP_REGISTER_MICROBENCH(CudaSoftmax);
}  // namespace ptp::profile::cuda
