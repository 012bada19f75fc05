// Dtype casts (autocast weight casts, master-weight copies): from -> to among fp32/fp16/bf16.
#include "../kernel_common.cuh"

namespace ptp::profile::cuda {
namespace {

template <typename From, typename To>
__global__ void cast_kernel(const From* in, To* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = from_f<To>(to_f(in[i]));
}

class CudaCast final : public CudaOpsBench {
 public:
  std::string name() const override { return "cuda_cast"; }
  std::vector<AxisSpec> axes() const override {
    return {{"elements", "", "elements cast"}, {"from", "", "fp32 | fp16 | bf16"}, {"to", "", "fp32 | fp16 | bf16"}};
  }
  Work describe(const Point& p) const override {
    const double n = static_cast<double>(p.integer("elements"));
    const int a = kernel_dtype_bytes(p.text("from"), p.id()), b = kernel_dtype_bytes(p.text("to"), p.id());
    Work w = memory_work(p, "cast", p.text("from") + "_to_" + p.text("to"), p.text("elements"), p.text("from"), 0,
                         (a + b) * n);
    w.fields["dtype_out"] = p.text("to");
    return w;
  }
  void run(const Point& p, Measurement& m) const override {
    const auto n = static_cast<std::size_t>(p.integer("elements"));
    with_dtype(p.text("from"), [&](auto from_tag) {
      with_dtype(p.text("to"), [&](auto to_tag) {
        using From = decltype(from_tag);
        using To = decltype(to_tag);
        DeviceBuffer in(n * sizeof(From)), out(n * sizeof(To));
        Stream s;
        measure_cuda(m, s.get(), [&] {
          cast_kernel<From, To><<<grid_1d(n), 256, 0, s.get()>>>(in.get<From>(), out.get<To>(), n);
        });
      });
    });
  }
};

}  // namespace
PTP_REGISTER_MICROBENCH(CudaCast);
}  // namespace ptp::profile::cuda
