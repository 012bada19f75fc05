// FP32 GEMM through the system BLAS (OpenBLAS on Debian): C = A * B, row-major, no transposes.
#include <cblas.h>

#include "host_buffers.hpp"
#include "ptp/profile/microbenchmark.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::host {
namespace {

class HostGemm final : public Microbenchmark {
 public:
  std::string name() const override { return "host_gemm"; }
  Backend backend() const override { return Backend::host; }
  Table table() const override { return Table::ops; }
  std::vector<AxisSpec> axes() const override {
    return {{"m", "", "rows of C"}, {"n", "", "columns of C"}, {"k", "", "reduction length"},
            {"dtype", "fp32", "element type (host: fp32 only; others become unsupported rows)"}};
  }
  Work describe(const Point& p) const override {
    const double m = static_cast<double>(p.integer("m")), n = static_cast<double>(p.integer("n")),
                 k = static_cast<double>(p.integer("k"));
    if (m < 1 || n < 1 || k < 1) throw InputError(p.id() + ": m, n, k must be >= 1");
    const std::string& dtype = p.text("dtype");
    Work w;
    w.flops = 2 * m * n * k;
    w.bytes = 4 * (m * k + k * n + m * n);
    w.math = "fp32";  // BLAS sgemm
    w.alloc_bytes = w.bytes;  // A, B and C
    w.unsupported = fp32_only(dtype);
    w.fields = {{"op_class", "gemm"},     {"op_name", "cblas_sgemm"},     {"m", p.text("m")},
                {"n", p.text("n")},       {"k", p.text("k")},             {"batch", "1"},
                {"dtype_in", dtype},      {"dtype_compute", dtype},       {"dtype_out", dtype},
                {"flops", format_number(w.flops)}, {"bytes", format_number(w.bytes)}};
    return w;
  }
  void run(const Point& p, Measurement& meas) const override {
    require_fp32(p.text("dtype"));
    const auto m = static_cast<int>(p.integer("m")), n = static_cast<int>(p.integer("n")),
               k = static_cast<int>(p.integer("k"));
    auto a = allocate<float>(static_cast<std::size_t>(m) * k, "A");
    auto b = allocate<float>(static_cast<std::size_t>(k) * n, "B");
    auto c = allocate<float>(static_cast<std::size_t>(m) * n, "C");
    meas.measure_host(
        [&] {
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f,
                      c.data(), n);
        },
        flush_caches);
    if (c[0] != static_cast<float>(k)) throw PointFailure(PointStatus::failed, "sgemm result check failed");
  }
};

}  // namespace
PTP_REGISTER_MICROBENCH(HostGemm);
}  // namespace ptp::profile::host
