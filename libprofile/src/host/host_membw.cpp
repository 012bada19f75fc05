// Memory bandwidth on the host: memcpy between two buffers (reads + writes counted, as STREAM copy).
#include <cstring>

#include "host_buffers.hpp"
#include "ptp/profile/microbenchmark.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::host {
namespace {

class HostMemBandwidth final : public Microbenchmark {
 public:
  std::string name() const override { return "host_membw"; }
  Backend backend() const override { return Backend::host; }
  Table table() const override { return Table::ops; }
  std::vector<AxisSpec> axes() const override { return {{"bytes", "", "bytes copied per call"}}; }
  Work describe(const Point& p) const override {
    const double b = static_cast<double>(p.integer("bytes"));
    if (b < 1) throw InputError(p.id() + ": bytes must be >= 1");
    Work w;
    w.bytes = 2 * b;
    w.alloc_bytes = w.bytes;  // source and destination
    w.fields = {{"op_class", "memcpy"}, {"op_name", "memcpy_h2h"}, {"shape", p.text("bytes")},
                {"dtype_in", "int8"},   {"dtype_out", "int8"},      {"flops", "0"},
                {"bytes", format_number(w.bytes)}};
    return w;
  }
  void run(const Point& p, Measurement& meas) const override {
    const auto n = static_cast<std::size_t>(p.integer("bytes"));
    auto src = allocate<unsigned char>(n, "source");
    auto dst = allocate<unsigned char>(n, "destination");
    meas.measure_host([&] { std::memcpy(dst.data(), src.data(), n); }, flush_caches);
    if (dst[n - 1] != src[n - 1]) throw PointFailure(PointStatus::failed, "copy check failed");
  }
};

}  // namespace
PTP_REGISTER_MICROBENCH(HostMemBandwidth);
}  // namespace ptp::profile::host
