// Sum reduction of a tensor to one fp32 value (grad-norm style): grid-stride partial sums, warp
// shuffles, one atomicAdd per block.
#include "../kernel_common.cuh"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {
namespace {

template <typename T>
__global__ void reduce_kernel(const T* x, std::size_t n, float* out) {
  constexpr int V = kVec<T>;
  const kernel_math::VecSplit split = kernel_math::vec_split(n, V);
  float v = 0;
  for (std::size_t i = thread_index(); i < split.vectors; i += thread_count()) {
    const Pack<T, V> p = load_pack<T, V>(x, i);  // 16-byte loads
#pragma unroll
    for (int j = 0; j < V; ++j) v += to_f(p.v[j]);
  }
  for (std::size_t i = split.tail_begin + thread_index(); i < n; i += thread_count()) v += to_f(x[i]);
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) atomicAdd(out, v);
}

class CudaReduction final : public CudaOpsBench {
 public:
  std::string name() const override { return "cuda_reduction"; }
  void run(const Point& p, Measurement& m) const override {
    const auto n = static_cast<std::size_t>(p.integer("elements"));
    with_dtype(p.text("dtype"), [&](auto tag) {
      using T = decltype(tag);
      DeviceBuffer x(n * sizeof(T)), out(sizeof(float));
      fill_random<T>(x, n, 1);
      Stream s;
      measure_cuda(m, s.get(), [&] {
        reduce_kernel<T><<<std::min(grid_vec(n, kVec<T>), 1024u), 256, 0, s.get()>>>(x.get<T>(), n, out.get<float>());
      });
    });
  }
};

}  // namespace
PTP_REGISTER_MICROBENCH(CudaReduction);
}  // namespace ptp::profile::cuda
