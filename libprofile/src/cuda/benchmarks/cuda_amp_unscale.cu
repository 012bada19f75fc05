// AMP dynamic loss scaling: multiply gradients by 1/scale and flag any inf/nan (the check that
// decides whether the optimizer step is skipped).
#include "../kernel_common.cuh"

namespace ptp::profile::cuda {
namespace {

template <typename T>
__global__ void unscale_kernel(T* grad, std::size_t n, float inv_scale, int* found_inf) {
  int bad = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    const float g = to_f(grad[i]) * inv_scale;
    bad |= !isfinite(g);
    grad[i] = from_f<T>(g);
  }
  if (__any_sync(0xffffffffu, bad) && threadIdx.x % 32 == 0) atomicOr(found_inf, 1);
}

class CudaAmpUnscale final : public CudaOpsBench {
 public:
  std::string name() const override { return "cuda_amp_unscale"; }
  std::vector<AxisSpec> axes() const override {
    return {{"elements", "", "gradient elements"}, {"dtype", "", "gradient storage: fp32 | fp16 | bf16"}};
  }
  Work describe(const Point& p) const override {
    const double n = static_cast<double>(p.integer("elements"));
    const int eb = kernel_dtype_bytes(p.text("dtype"), p.id());
    return memory_work(p, "loss_scale", "unscale_inf_check", p.text("elements"), p.text("dtype"), 2 * n, 2 * eb * n);
  }
  void run(const Point& p, Measurement& m) const override {
    const auto n = static_cast<std::size_t>(p.integer("elements"));
    with_dtype(p.text("dtype"), [&](auto tag) {
      using T = decltype(tag);
      DeviceBuffer grad(n * sizeof(T)), flag(sizeof(int));
      Stream s;
      measure_cuda(m, s.get(), [&] {
        unscale_kernel<T><<<grid_1d(n), 256, 0, s.get()>>>(grad.get<T>(), n, 1.0f / 65536.0f, flag.get<int>());
      });
    });
  }
};

}  // namespace
PTP_REGISTER_MICROBENCH(CudaAmpUnscale);
}  // namespace ptp::profile::cuda
