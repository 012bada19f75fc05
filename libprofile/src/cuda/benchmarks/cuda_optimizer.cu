// Optimizer step on FP32 master weights with fp32/fp16/bf16 model params and gradients:
// SGD-momentum, Adam and AdamW, either fused (one kernel reading everything once) or unfused (one
// kernel per tensor update, as eager frameworks run them), so both costs can be learned.
#include "../kernel_common.cuh"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {
namespace {

enum class Algo { sgd_momentum, adam, adamw };

struct Hyper {
  float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f, wd = 0.01f, momentum = 0.9f;
};

// All kernels move 4 elements per thread step: 16-byte loads of the fp32 streams (master, moments)
// and 4-element loads of the model-dtype streams (grad, param), then a scalar tail.
constexpr int kV = 4;

__device__ __forceinline__ void fused_one(Algo algo, const Hyper& h, float g, float& w, float& a, float& b) {
  if (algo == Algo::sgd_momentum) {
    a = h.momentum * a + g;
    w -= h.lr * a;
  } else {
    a = h.beta1 * a + (1 - h.beta1) * g;
    b = h.beta2 * b + (1 - h.beta2) * g * g;
    if (algo == Algo::adamw) w -= h.lr * h.wd * w;
    w -= h.lr * a / (sqrtf(b) + h.eps);
  }
}

template <typename T>
__global__ void fused_step(Algo algo, Hyper h, float* master, float* m1, float* m2, const T* grad, T* param,
                           std::size_t n) {
  const bool adam = algo != Algo::sgd_momentum;
  const kernel_math::VecSplit split = kernel_math::vec_split(n, kV);
  for (std::size_t v = thread_index(); v < split.vectors; v += thread_count()) {
    const Pack<T, kV> g = load_pack<T, kV>(grad, v);
    Pack<float, kV> w = load_pack<float, kV>(master, v), a = load_pack<float, kV>(m1, v), b{};
    if (adam) b = load_pack<float, kV>(m2, v);
    Pack<T, kV> out;
#pragma unroll
    for (int j = 0; j < kV; ++j) {
      fused_one(algo, h, to_f(g.v[j]), w.v[j], a.v[j], b.v[j]);
      out.v[j] = from_f<T>(w.v[j]);
    }
    store_pack<float, kV>(master, v, w);
    store_pack<float, kV>(m1, v, a);
    if (adam) store_pack<float, kV>(m2, v, b);
    store_pack<T, kV>(param, v, out);
  }
  for (std::size_t i = split.tail_begin + thread_index(); i < n; i += thread_count()) {
    float w = master[i], a = m1[i], b = adam ? m2[i] : 0.0f;
    fused_one(algo, h, to_f(grad[i]), w, a, b);
    master[i] = w;
    m1[i] = a;
    if (adam) m2[i] = b;
    param[i] = from_f<T>(w);
  }
}

// Unfused pieces: each is one pass over its tensors, like per-op eager kernels.
template <typename T>
__global__ void moment_update(float* m, const T* grad, float decay, float scale, bool squared, std::size_t n) {
  const kernel_math::VecSplit split = kernel_math::vec_split(n, kV);
  for (std::size_t v = thread_index(); v < split.vectors; v += thread_count()) {
    const Pack<T, kV> g = load_pack<T, kV>(grad, v);
    Pack<float, kV> mv = load_pack<float, kV>(m, v);
#pragma unroll
    for (int j = 0; j < kV; ++j) {
      const float x = to_f(g.v[j]);
      mv.v[j] = decay * mv.v[j] + scale * (squared ? x * x : x);
    }
    store_pack<float, kV>(m, v, mv);
  }
  for (std::size_t i = split.tail_begin + thread_index(); i < n; i += thread_count()) {
    const float x = to_f(grad[i]);
    m[i] = decay * m[i] + scale * (squared ? x * x : x);
  }
}
__device__ __forceinline__ float weight_one(Algo algo, const Hyper& h, float w, float a, float b) {
  return algo == Algo::sgd_momentum ? w - h.lr * a : w - h.lr * a / (sqrtf(b) + h.eps);
}
__global__ void weight_update(Algo algo, Hyper h, float* master, const float* m1, const float* m2, std::size_t n) {
  const bool adam = algo != Algo::sgd_momentum;
  const kernel_math::VecSplit split = kernel_math::vec_split(n, kV);
  for (std::size_t v = thread_index(); v < split.vectors; v += thread_count()) {
    Pack<float, kV> w = load_pack<float, kV>(master, v);
    const Pack<float, kV> a = load_pack<float, kV>(m1, v);
    Pack<float, kV> b{};
    if (adam) b = load_pack<float, kV>(m2, v);
#pragma unroll
    for (int j = 0; j < kV; ++j) w.v[j] = weight_one(algo, h, w.v[j], a.v[j], b.v[j]);
    store_pack<float, kV>(master, v, w);
  }
  for (std::size_t i = split.tail_begin + thread_index(); i < n; i += thread_count())
    master[i] = weight_one(algo, h, master[i], m1[i], adam ? m2[i] : 0.0f);
}
__global__ void weight_decay(float* master, float factor, std::size_t n) {
  const kernel_math::VecSplit split = kernel_math::vec_split(n, kV);
  for (std::size_t v = thread_index(); v < split.vectors; v += thread_count()) {
    Pack<float, kV> w = load_pack<float, kV>(master, v);
#pragma unroll
    for (int j = 0; j < kV; ++j) w.v[j] *= factor;
    store_pack<float, kV>(master, v, w);
  }
  for (std::size_t i = split.tail_begin + thread_index(); i < n; i += thread_count()) master[i] *= factor;
}
template <typename T>
__global__ void copy_to_params(const float* master, T* param, std::size_t n) {
  const kernel_math::VecSplit split = kernel_math::vec_split(n, kV);
  for (std::size_t v = thread_index(); v < split.vectors; v += thread_count()) {
    const Pack<float, kV> w = load_pack<float, kV>(master, v);
    Pack<T, kV> out;
#pragma unroll
    for (int j = 0; j < kV; ++j) out.v[j] = from_f<T>(w.v[j]);
    store_pack<T, kV>(param, v, out);
  }
  for (std::size_t i = split.tail_begin + thread_index(); i < n; i += thread_count()) param[i] = from_f<T>(master[i]);
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
  void run(const Point& p, Measurement& m) const override {
    const Algo algo = parse_algo(p);
    const bool fused = parse_fused(p);
    const auto n = static_cast<std::size_t>(p.integer("params"));
    m.set("notes", "fp32 master weights");
    with_dtype(p.text("dtype"), [&](auto tag) {
      using T = decltype(tag);
      DeviceBuffer master(n * 4), m1(n * 4), m2(algo == Algo::sgd_momentum ? 4 : n * 4), grad(n * sizeof(T)),
          param(n * sizeof(T));
      fill_random<float>(master, n, 1);
      fill_random<float>(m1, n, 2, -0.01f, 0.01f);
      if (algo != Algo::sgd_momentum) fill_random<float>(m2, n, 3, 0.0f, 1e-4f);  // second moment >= 0
      fill_random<T>(grad, n, 4);
      fill_random<T>(param, n, 5);
      Stream s;
      const Hyper h;
      const unsigned g = grid_vec(n, kV);
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
