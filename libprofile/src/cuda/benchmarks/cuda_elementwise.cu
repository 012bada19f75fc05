// Elementwise kernels: add, mul, GELU (tanh form) and dropout (counter-hash mask), fp32 math on
// fp32/fp16/bf16 storage.
#include "../kernel_common.cuh"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {
namespace {

enum class Op { add, mul, gelu, dropout };

__device__ __forceinline__ float apply(Op op, float x, float y, std::size_t i, unsigned seed) {
  switch (op) {
    case Op::add: return x + y;
    case Op::mul: return x * y;
    case Op::gelu: return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
    case Op::dropout: {
      unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
      h ^= h >> 15;
      h *= 2246822519u;
      return (h & 0xffffu) < 6554u ? 0.0f : x * (1.0f / 0.9f);
    }
  }
  return x;  // not reached: every Op is a case above
}

// 16-byte vector loads/stores over the whole vectors, then a scalar tail.
template <typename T>
__global__ void elementwise_kernel(Op op, const T* a, const T* b, T* out, std::size_t n, unsigned seed) {
  constexpr int V = kVec<T>;
  const bool binary = op == Op::add || op == Op::mul;
  const kernel_math::VecSplit split = kernel_math::vec_split(n, V);
  for (std::size_t v = thread_index(); v < split.vectors; v += thread_count()) {
    const Pack<T, V> pa = load_pack<T, V>(a, v);
    Pack<T, V> pb = pa;
    if (binary) pb = load_pack<T, V>(b, v);
    Pack<T, V> po;
#pragma unroll
    for (int j = 0; j < V; ++j) po.v[j] = from_f<T>(apply(op, to_f(pa.v[j]), to_f(pb.v[j]), v * V + j, seed));
    store_pack<T, V>(out, v, po);
  }
  for (std::size_t i = split.tail_begin + thread_index(); i < n; i += thread_count())
    out[i] = from_f<T>(apply(op, to_f(a[i]), binary ? to_f(b[i]) : 0.0f, i, seed));
}

Op parse_op(const Point& p) {
  const std::string& s = p.text("op");
  if (s == "add") return Op::add;
  if (s == "mul") return Op::mul;
  if (s == "gelu") return Op::gelu;
  if (s == "dropout") return Op::dropout;
  throw InputError(p.id() + ": op must be add, mul, gelu or dropout");
}

class CudaElementwise final : public CudaOpsBench {
 public:
  std::string name() const override { return "cuda_elementwise"; }
  void run(const Point& p, Measurement& m) const override {
    const Op op = parse_op(p);
    const auto n = static_cast<std::size_t>(p.integer("elements"));
    with_dtype(p.text("dtype"), [&](auto tag) {
      using T = decltype(tag);
      DeviceBuffer a(n * sizeof(T)), b(n * sizeof(T)), out(n * sizeof(T));
      fill_random<T>(a, n, 1);
      fill_random<T>(b, n, 2);
      Stream s;
      unsigned seed = 1;
      measure_cuda(m, s.get(), [&] {
        elementwise_kernel<T><<<grid_vec(n, kVec<T>), 256, 0, s.get()>>>(op, a.get<T>(), b.get<T>(), out.get<T>(), n, ++seed);
      });
    });
  }
};

}  // namespace
PTP_REGISTER_MICROBENCH(CudaElementwise);
}  // namespace ptp::profile::cuda
