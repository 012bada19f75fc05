// cuBLASLt strided-batched GEMM (attention QK^T / PV shapes) over m, n, k, batch and dtype.
#include "../cublaslt_gemm.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {
namespace {

class CublasLtBatchedGemm final : public Microbenchmark {
 public:
  std::string name() const override { return "cublaslt_batched_gemm"; }
  Backend backend() const override { return Backend::cuda; }
  Table table() const override { return Table::ops; }
  std::vector<AxisSpec> axes() const override { return gemm_axes(true); }
  Work describe(const Point& p) const override { return describe_gemm(p, true); }
  void run(const Point& p, Measurement& m) const override { run_gemm(p, m, true); }
};

}  // namespace
PTP_REGISTER_MICROBENCH(CublasLtBatchedGemm);
}  // namespace ptp::profile::cuda
