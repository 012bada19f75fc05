// Memory-bound elementwise kernels on the host: add, mul, GELU (tanh form) and dropout, fp32.
#include <cmath>
#include <cstdint>

#include "host_buffers.hpp"
#include "ptp/profile/microbenchmark.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::host {
namespace {

struct OpCost {
  int arrays;  // fp32 arrays read + written
  double flops;
};

OpCost cost_of(const std::string& op, const std::string& id) {
  if (op == "add" || op == "mul") return {3, 1};
  if (op == "gelu") return {2, 14};
  if (op == "dropout") return {2, 6};  // hash-based mask + select + scale
  throw InputError(id + ": axis 'op' must be add, mul, gelu or dropout, got '" + op + "'");
}

class HostElementwise final : public Microbenchmark {
 public:
  std::string name() const override { return "host_elementwise"; }
  Backend backend() const override { return Backend::host; }
  Table table() const override { return Table::ops; }
  std::vector<AxisSpec> axes() const override {
    return {{"op", "", "add | mul | gelu | dropout"}, {"elements", "", "elements per tensor"},
            {"dtype", "fp32", "element type (host: fp32)"}};
  }
  Work describe(const Point& p) const override {
    const double n = static_cast<double>(p.integer("elements"));
    if (n < 1) throw InputError(p.id() + ": elements must be >= 1");
    const OpCost c = cost_of(p.text("op"), p.id());
    Work w;
    w.flops = c.flops * n;
    w.bytes = 4.0 * c.arrays * n;
    w.math = p.text("op") == "gelu" ? "libm" : "loop";  // GELU calls std::tanh per element
    w.alloc_bytes = 3 * 4.0 * n;                          // x, y and out, whatever the op
    w.unsupported = fp32_only(p.text("dtype"));
    w.fields = {{"op_class", "elementwise"},    {"op_name", p.text("op")},      {"shape", p.text("elements")},
                {"dtype_in", p.text("dtype")},  {"dtype_out", p.text("dtype")}, {"flops", format_number(w.flops)},
                {"bytes", format_number(w.bytes)}};
    return w;
  }
  void run(const Point& p, Measurement& meas) const override {
    require_fp32(p.text("dtype"));
    const auto n = static_cast<std::size_t>(p.integer("elements"));
    const std::string& op = p.text("op");
    auto x = allocate<float>(n, "x");
    auto y = allocate<float>(n, "y");
    auto out = allocate<float>(n, "out");
    float* __restrict o = out.data();
    const float* __restrict a = x.data();
    const float* __restrict b = y.data();
    std::uint32_t seed = 1;
    meas.measure_host(
        [&] {
          if (op == "add") {
            for (std::size_t i = 0; i < n; ++i) o[i] = a[i] + b[i];
          } else if (op == "mul") {
            for (std::size_t i = 0; i < n; ++i) o[i] = a[i] * b[i];
          } else if (op == "gelu") {
            for (std::size_t i = 0; i < n; ++i) {
              const float v = a[i];
              o[i] = 0.5f * v * (1.0f + std::tanh(0.7978845608f * (v + 0.044715f * v * v * v)));
            }
          } else {  // dropout p=0.1 with a counter hash, like Philox-style counter RNGs on GPUs
            const float scale = 1.0f / 0.9f;
            ++seed;
            for (std::size_t i = 0; i < n; ++i) {
              std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u ^ seed;
              h ^= h >> 15;
              h *= 2246822519u;
              o[i] = (h & 0xffffu) < 6554u ? 0.0f : a[i] * scale;
            }
          }
        },
        flush_caches);
  }
};

}  // namespace
PTP_REGISTER_MICROBENCH(HostElementwise);
}  // namespace ptp::profile::host
