// Optimizer step on FP32 master weights with fp32/fp16/bf16 model params and gradients:
// SGD-momentum, Adam and AdamW, either fused (one kernel reading everything once) or unfused (one
// kernel per tensor update, as eager frameworks run them), so both costs can be learned.
#include "../kernel_common.cuh"

namespace ptp::profile::cuda {
namespace {

enum class Algo { sgd_momentum, adam, adamw };

struct Hyper {
  float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f, wd = 0.01f, momentum = 0.9f;
};

template <typename T>
__global__ void fused_step(Algo algo, Hyper h, float* master, float* m1, float* m2, const T* grad, T* param,
                           std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    const float g = to_f(grad[i]);
    float w = master[i];
    if (algo == Algo::sgd_momentum) {
      const float v = h.momentum * m1[i] + g;
      m1[i] = v;
      w -= h.lr * v;
    } else {
      const float a = h.beta1 * m1[i] + (1 - h.beta1) * g, b = h.beta2 * m2[i] + (1 - h.beta2) * g * g;
      m1[i] = a;
      m2[i] = b;
      if (algo == Algo::adamw) w -= h.lr * h.wd * w;
      w -= h.lr * a / (sqrtf(b) + h.eps);
    }
    master[i] = w;
    param[i] = from_f<T>(w);
  }
}

// Unfused pieces: each is one pass over its tensors, like per-op eager kernels.
template <typename T>
__global__ void moment_update(float* m, const T* grad, float decay, float scale, bool squared, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    const float g = to_f(grad[i]);
    m[i] = decay * m[i] + scale * (squared ? g * g : g);
  }
}
__global__ void weight_update(Algo algo, Hyper h, float* master, const float* m1, const float* m2, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    float w = master[i];
    if (algo == Algo::sgd_momentum) w -= h.lr * m1[i];
    else w -= h.lr * m1[i] / (sqrtf(m2[i]) + h.eps);
    master[i] = w;
  }
}
__global__ void weight_decay(float* master, float factor, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    master[i] *= factor;
}
template <typename T>
__global__ void copy_to_params(const float* master, T* param, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    param[i] = from_f<T>(master[i]);
}

Algo parse_algo(const Point& p) {
  const std::string& a = p.text("algo");
  if (a == "sgd_momentum") return Algo::sgd_momentum;
  if (a == "adam") return Algo::adam;
  if (a == "adamw") return Algo::adamw;
  throw InputError(p.id() + ": algo must be sgd_momentum, adam or adamw");
}

bool parse_fused(const Point& p) {
  const std::string& f = p.text("fused");
  if (f != "true" && f != "false") throw InputError(p.id() + ": fused must be true or false");
  return f == "true";
}

class CudaOptimizer final : public CudaOpsBench {
 public:
  std::string name() const override { return "cuda_optimizer"; }
  std::vector<AxisSpec> axes() const override {
    return {{"algo", "", "sgd_momentum | adam | adamw"},
            {"fused", "", "true | false"},
            {"params", "", "parameter count"},
            {"dtype", "", "param/grad storage: fp32 | fp16 | bf16 (master weights are fp32)"}};
  }
  Work describe(const Point& p) const override {
    const Algo algo = parse_algo(p);
    const bool fused = parse_fused(p);
    const double n = static_cast<double>(p.integer("params"));
    const int eb = kernel_dtype_bytes(p.text("dtype"), p.id());
    const int states = algo == Algo::sgd_momentum ? 1 : 2;
    // Fused: read grad + master + states, write master + states + params once.
    double bytes = n * (eb + 4 + 4 * states + 4 + 4 * states + eb);
    if (!fused)  // each moment kernel re-reads grad; weight update re-reads master/states; a copy pass
      bytes += n * (states * eb + 4 * states + (algo == Algo::adamw ? 8 : 0) + 4);
    const double flops = n * (algo == Algo::sgd_momentum ? 4 : 14);
    Work w = memory_work(p, "optimizer", p.text("algo") + (fused ? "_fused" : "_unfused"), p.text("params"),
                         p.text("dtype"), flops, bytes);
    w.fields["notes"] = "fp32 master weights";
    return w;
  }
  void run(const Point& p, Measurement& m) const override {
    const Algo algo = parse_algo(p);
    const bool fused = parse_fused(p);
    const auto n = static_cast<std::size_t>(p.integer("params"));
    with_dtype(p.text("dtype"), [&](auto tag) {
      using T = decltype(tag);
      DeviceBuffer master(n * 4), m1(n * 4), m2(algo == Algo::sgd_momentum ? 4 : n * 4), grad(n * sizeof(T)),
          param(n * sizeof(T));
      Stream s;
      const Hyper h;
      const unsigned g = grid_1d(n);
      measure_cuda(m, s.get(), [&] {
        if (fused) {
          fused_step<T><<<g, 256, 0, s.get()>>>(algo, h, master.get<float>(), m1.get<float>(), m2.get<float>(),
                                                grad.get<T>(), param.get<T>(), n);
          return;
        }
        if (algo == Algo::sgd_momentum) {
          moment_update<T><<<g, 256, 0, s.get()>>>(m1.get<float>(), grad.get<T>(), h.momentum, 1.0f, false, n);
        } else {
          moment_update<T><<<g, 256, 0, s.get()>>>(m1.get<float>(), grad.get<T>(), h.beta1, 1 - h.beta1, false, n);
          moment_update<T><<<g, 256, 0, s.get()>>>(m2.get<float>(), grad.get<T>(), h.beta2, 1 - h.beta2, true, n);
        }
        if (algo == Algo::adamw) weight_decay<<<g, 256, 0, s.get()>>>(master.get<float>(), 1 - h.lr * h.wd, n);
        weight_update<<<g, 256, 0, s.get()>>>(algo, h, master.get<float>(), m1.get<float>(), m2.get<float>(), n);
        copy_to_params<T><<<g, 256, 0, s.get()>>>(master.get<float>(), param.get<T>(), n);
      });
    });
  }
};

}  // namespace
PTP_REGISTER_MICROBENCH(CudaOptimizer);
}  // namespace ptp::profile::cuda
