// Dtype casts (autocast weight casts, master-weight copies): from -> to among fp32/fp16/bf16.
#include "../kernel_common.cuh"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {
namespace {

// Vectors of 16 bytes of the input (the output side moves the same element count), scalar tail.
template <typename From, typename To>
__global__ void cast_kernel(const From* in, To* out, std::size_t n) {
  constexpr int V = kVec<From>;
  const kernel_math::VecSplit split = kernel_math::vec_split(n, V);
  for (std::size_t v = thread_index(); v < split.vectors; v += thread_count()) {
    const Pack<From, V> pi = load_pack<From, V>(in, v);
    Pack<To, V> po;
#pragma unroll
    for (int j = 0; j < V; ++j) po.v[j] = from_f<To>(to_f(pi.v[j]));
    store_pack<To, V>(out, v, po);
  }
  for (std::size_t i = split.tail_begin + thread_index(); i < n; i += thread_count()) out[i] = from_f<To>(to_f(in[i]));
}

class CudaCast final : public CudaOpsBench {
 public:
  std::string name() const override { return "cuda_cast"; }
  void run(const Point& p, Measurement& m) const override {
    const auto n = static_cast<std::size_t>(p.integer("elements"));
    with_dtype(p.text("from"), [&](auto from_tag) {
      with_dtype(p.text("to"), [&](auto to_tag) {
        using From = decltype(from_tag);
        using To = decltype(to_tag);
        DeviceBuffer in(n * sizeof(From)), out(n * sizeof(To));
        fill_random<From>(in, n, 1);
        Stream s;
        measure_cuda(m, s.get(), [&] {
          cast_kernel<From, To><<<grid_vec(n, kVec<From>), 256, 0, s.get()>>>(in.get<From>(), out.get<To>(), n);
        });
      });
    });
  }
};

}  // namespace
PTP_REGISTER_MICROBENCH(CudaCast);
}  // namespace ptp::profile::cuda
