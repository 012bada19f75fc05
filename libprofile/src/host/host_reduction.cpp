// Sum reduction of an fp32 vector on the host (accumulated in fp64, like a careful GPU reduction).
#include "host_buffers.hpp"
#include "ptp/profile/microbenchmark.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::host {
namespace {

class HostReduction final : public Microbenchmark {
 public:
  std::string name() const override { return "host_reduction"; }
  Backend backend() const override { return Backend::host; }
  Table table() const override { return Table::ops; }
  std::vector<AxisSpec> axes() const override {
    return {{"elements", "", "elements reduced"}, {"dtype", "fp32", "element type (host: fp32)"}};
  }
  Work describe(const Point& p) const override {
    const double n = static_cast<double>(p.integer("elements"));
    if (n < 1) throw InputError(p.id() + ": elements must be >= 1");
    Work w;
    w.flops = n;
    w.bytes = 4 * n;
    w.math = "loop";
    w.alloc_bytes = w.bytes;
    w.unsupported = fp32_only(p.text("dtype"));
    w.fields = {{"op_class", "reduction"}, {"op_name", "sum"},        {"shape", p.text("elements")},
                {"dtype_in", p.text("dtype")}, {"dtype_compute", "fp64"}, {"dtype_out", p.text("dtype")},
                {"flops", format_number(w.flops)}, {"bytes", format_number(w.bytes)}};
    return w;
  }
  void run(const Point& p, Measurement& meas) const override {
    require_fp32(p.text("dtype"));
    const auto n = static_cast<std::size_t>(p.integer("elements"));
    auto x = allocate<float>(n, "x");
    volatile double sink = 0;
    meas.measure_host(
        [&] {
          double s0 = 0, s1 = 0, s2 = 0, s3 = 0;  // four chains so the adds pipeline
          std::size_t i = 0;
          for (; i + 4 <= n; i += 4) {
            s0 += x[i];
            s1 += x[i + 1];
            s2 += x[i + 2];
            s3 += x[i + 3];
          }
          for (; i < n; ++i) s0 += x[i];
          sink = s0 + s1 + s2 + s3;
        },
        flush_caches);
    if (sink != static_cast<double>(n)) throw PointFailure(PointStatus::failed, "reduction result check failed");
  }
};

}  // namespace
PTP_REGISTER_MICROBENCH(HostReduction);
}  // namespace ptp::profile::host
