// cuBLASLt dense GEMM over m, n, k and dtype.
#include "../cublaslt_gemm.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {
namespace {

class CublasLtGemm final : public Microbenchmark {
 public:
  std::string name() const override { return "cublaslt_gemm"; }
  Backend backend() const override { return Backend::cuda; }
  Table table() const override { return Table::ops; }
  std::vector<AxisSpec> axes() const override { return gemm_axes(false); }
  Work describe(const Point& p) const override { return describe_gemm(p, false); }
  void run(const Point& p, Measurement& m) const override { run_gemm(p, m, false); }
};

}  // namespace
PTP_REGISTER_MICROBENCH(CublasLtGemm);
}  // namespace ptp::profile::cuda
