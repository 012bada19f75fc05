// NCCL all_reduce (sum; bus factor 2(n-1)/n).
#include "../nccl_harness.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {
namespace {

class NcclAllReduce final : public Microbenchmark {
 public:
  std::string name() const override { return "nccl_all_reduce"; }
  Backend backend() const override { return Backend::cuda; }
  Table table() const override { return Table::collectives; }
  std::vector<AxisSpec> axes() const override { return collective_axes(); }
  Work describe(const Point& p) const override { return describe_collective(p, "all_reduce"); }
  void run(const Point& p, Measurement& m) const override {
    run_collective(p, m, "all_reduce", [](const CollectiveCall& c) {
      return ncclAllReduce(c.send, c.recv, c.count, c.dtype, ncclSum, c.comm, c.stream);
    });
  }
};

}  // namespace
PTP_REGISTER_MICROBENCH(NcclAllReduce);
}  // namespace ptp::profile::cuda
