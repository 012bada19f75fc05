// AMP dynamic loss scaling: multiply gradients by 1/scale and flag any inf/nan (the check that
// decides whether the optimizer step is skipped).
#include "../kernel_common.cuh"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {
namespace {

template <typename T>
__global__ void unscale_kernel(T* grad, std::size_t n, float inv_scale, int* found_inf) {
  constexpr int V = kVec<T>;
  const kernel_math::VecSplit split = kernel_math::vec_split(n, V);
  int bad = 0;
  for (std::size_t v = thread_index(); v < split.vectors; v += thread_count()) {
    Pack<T, V> p = load_pack<T, V>(grad, v);  // 16-byte loads and stores
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const float g = to_f(p.v[j]) * inv_scale;
      bad |= !isfinite(g);
      p.v[j] = from_f<T>(g);
    }
    store_pack<T, V>(grad, v, p);
  }
  for (std::size_t i = split.tail_begin + thread_index(); i < n; i += thread_count()) {
    const float g = to_f(grad[i]) * inv_scale;
    bad |= !isfinite(g);
    grad[i] = from_f<T>(g);
  }
  if (__any_sync(0xffffffffu, bad) && threadIdx.x % 32 == 0) atomicOr(found_inf, 1);
}

class CudaAmpUnscale final : public CudaOpsBench {
 public:
  std::string name() const override { return "cuda_amp_unscale"; }
  void run(const Point& p, Measurement& m) const override {
    const auto n = static_cast<std::size_t>(p.integer("elements"));
    with_dtype(p.text("dtype"), [&](auto tag) {
      using T = decltype(tag);
      DeviceBuffer grad(n * sizeof(T)), flag(sizeof(int));
      fill_random<T>(grad, n, 1);
      Stream s;
      // The kernel rescales in place: alternate 1/2 and 2 (exact powers of two) so repeated calls
      // keep the random gradients in range instead of flushing them to zero.
      int call = 0;
      measure_cuda(m, s.get(), [&] {
        const float inv_scale = (call++ % 2 == 0) ? 0.5f : 2.0f;
        unscale_kernel<T><<<grid_vec(n, kVec<T>), 256, 0, s.get()>>>(grad.get<T>(), n, inv_scale, flag.get<int>());
      });
    });
  }
};

}  // namespace
PTP_REGISTER_MICROBENCH(CudaAmpUnscale);
}  // namespace ptp::profile::cuda
