// Elementwise kernels: add, mul, GELU (tanh form) and dropout (counter-hash mask), fp32 math on
// fp32/fp16/bf16 storage.
#include "../kernel_common.cuh"

namespace ptp::profile::cuda {
namespace {

enum class Op { add, mul, gelu, dropout };

template <typename T>
__global__ void elementwise_kernel(Op op, const T* a, const T* b, T* out, std::size_t n, unsigned seed) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    const float x = to_f(a[i]);
    float y;
    switch (op) {
      case Op::add: y = x + to_f(b[i]); break;
      case Op::mul: y = x * to_f(b[i]); break;
      case Op::gelu: y = 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x))); break;
      default: {
        unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        y = (h & 0xffffu) < 6554u ? 0.0f : x * (1.0f / 0.9f);
      }
    }
    out[i] = from_f<T>(y);
  }
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
  std::vector<AxisSpec> axes() const override {
    return {{"op", "", "add | mul | gelu | dropout"}, {"elements", "", "elements per tensor"},
            {"dtype", "", "fp32 | fp16 | bf16"}};
  }
  Work describe(const Point& p) const override {
    const Op op = parse_op(p);
    const double n = static_cast<double>(p.integer("elements"));
    const int eb = kernel_dtype_bytes(p.text("dtype"), p.id());
    const int arrays = op == Op::add || op == Op::mul ? 3 : 2;
    const double flops = op == Op::gelu ? 14 * n : (op == Op::dropout ? 6 * n : n);
    return memory_work(p, "elementwise", p.text("op"), p.text("elements"), p.text("dtype"), flops, arrays * eb * n);
  }
  void run(const Point& p, Measurement& m) const override {
    const Op op = parse_op(p);
    const auto n = static_cast<std::size_t>(p.integer("elements"));
    with_dtype(p.text("dtype"), [&](auto tag) {
      using T = decltype(tag);
      DeviceBuffer a(n * sizeof(T)), b(n * sizeof(T)), out(n * sizeof(T));
      Stream s;
      unsigned seed = 1;
      measure_cuda(m, s.get(), [&] {
        elementwise_kernel<T><<<grid_1d(n), 256, 0, s.get()>>>(op, a.get<T>(), b.get<T>(), out.get<T>(), n, ++seed);
      });
    });
  }
};

}  // namespace
PTP_REGISTER_MICROBENCH(CudaElementwise);
}  // namespace ptp::profile::cuda
