#pragma once
// The extension point: one source file per microbenchmark, registered with
// PTP_REGISTER_MICROBENCH(Class). Benchmarks declare their axes, describe a point (op fields and the
// work used by the planner) and run it through a Measurement. Link registering TUs as an OBJECT
// library: a static archive would let the linker drop them.
#include <memory>
#include <string>
#include <vector>

#include "ptp/profile/measurement.hpp"
#include "ptp/profile/point.hpp"
#include "ptp/profile/row.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

enum class Backend { host, cuda };
const char* backend_name(Backend b);

struct AxisSpec {
  std::string name;
  std::string fallback;  // used when the sweep omits the axis; empty means the axis is required
  std::string help;
};

// What the planner and the row writer know before running.
struct Work {
  Row fields;          // schema cells that describe the op (op_class, m, n, k, dtype_in, flops, bytes, ...)
  double flops = 0;    // per call
  double bytes = 0;    // compulsory memory traffic per call
  std::string math;    // GpuSpec peak_tflops key bounding the compute (fp32, tf32, fp16_tc, ...);
                       // host: fp32 (BLAS), loop or libm (Roofline::flops)
  double link_bytes = 0;  // collectives: bytes each rank moves over the bus (size * bus factor)
  int gpus = 1;           // devices held while the point runs (GPU-minutes accounting)
  double setup_s = 0;     // extra per-point setup the planner should count (allocation, plans)
  double alloc_bytes = 0; // host: bytes allocated and filled once per point (first touch of fresh pages)
  // Non-empty when the backend refuses the point before running anything, whatever the machine (the
  // host measures fp32 only): the reason, e.g. "bf16 not run by the host backend (fp32 only)". The
  // plan counts such a point at its setup only; --from-job leaves it out (Sweep::skipped).
  std::string unsupported;
};

class Microbenchmark {
 public:
  virtual ~Microbenchmark() = default;
  virtual std::string name() const = 0;
  virtual Backend backend() const = 0;
  virtual Table table() const = 0;
  virtual std::vector<AxisSpec> axes() const = 0;
  // Validates the point's values (InputError naming the axis) and describes the work.
  virtual Work describe(const Point& p) const = 0;
  // Runs the point; throws PointFailure for expected failures (unsupported dtype, OOM).
  virtual void run(const Point& p, Measurement& m) const = 0;
};

class Registry {
 public:
  static Registry& instance();
  void add(std::unique_ptr<Microbenchmark> bench);
  const Microbenchmark* find(const std::string& name) const;
  const Microbenchmark& get(const std::string& name, const std::string& where) const;  // InputError
  std::vector<std::string> names() const;  // sorted
  std::vector<const Microbenchmark*> all() const;

 private:
  std::vector<std::unique_ptr<Microbenchmark>> benches_;
};

namespace detail {
template <typename T>
struct Registrar {
  Registrar() { Registry::instance().add(std::make_unique<T>()); }
};
}  // namespace detail

}  // namespace ptp::profile

#define PTP_REGISTER_MICROBENCH_CAT2(a, b) a##b
#define PTP_REGISTER_MICROBENCH_CAT(a, b) PTP_REGISTER_MICROBENCH_CAT2(a, b)
#define PTP_REGISTER_MICROBENCH(Class)                                                           \
  static const ::ptp::profile::detail::Registrar<Class> PTP_REGISTER_MICROBENCH_CAT(ptp_registrar_, \
                                                                                    __LINE__) {}
