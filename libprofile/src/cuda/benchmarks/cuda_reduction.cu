// Sum reduction of a tensor to one fp32 value (grad-norm style): grid-stride partial sums, warp
// shuffles, one atomicAdd per block.
#include "../kernel_common.cuh"

namespace ptp::profile::cuda {
namespace {

template <typename T>
__global__ void reduce_kernel(const T* x, std::size_t n, float* out) {
  float v = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    v += to_f(x[i]);
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) atomicAdd(out, v);
}

class CudaReduction final : public CudaOpsBench {
 public:
  std::string name() const override { return "cuda_reduction"; }
  std::vector<AxisSpec> axes() const override {
    return {{"elements", "", "elements reduced"}, {"dtype", "", "fp32 | fp16 | bf16"}};
  }
  Work describe(const Point& p) const override {
    const double n = static_cast<double>(p.integer("elements"));
    const int eb = kernel_dtype_bytes(p.text("dtype"), p.id());
    return memory_work(p, "reduction", "sum", p.text("elements"), p.text("dtype"), n, eb * n);
  }
  void run(const Point& p, Measurement& m) const override {
    const auto n = static_cast<std::size_t>(p.integer("elements"));
    with_dtype(p.text("dtype"), [&](auto tag) {
      using T = decltype(tag);
      DeviceBuffer x(n * sizeof(T)), out(sizeof(float));
      Stream s;
      measure_cuda(m, s.get(), [&] {
        reduce_kernel<T><<<std::min(grid_1d(n), 1024u), 256, 0, s.get()>>>(x.get<T>(), n, out.get<float>());
      });
    });
  }
};

}  // namespace
PTP_REGISTER_MICROBENCH(CudaReduction);
}  // namespace ptp::profile::cuda
