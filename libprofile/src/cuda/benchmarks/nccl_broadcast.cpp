// NCCL broadcast (root 0; bus factor 1).
#include "../nccl_harness.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {
namespace {

class NcclBroadcast final : public Microbenchmark {
 public:
  std::string name() const override { return "nccl_broadcast"; }
  Backend backend() const override { return Backend::cuda; }
  Table table() const override { return Table::collectives; }
  std::vector<AxisSpec> axes() const override { return collective_axes(); }
  Work describe(const Point& p) const override { return describe_collective(p, "broadcast"); }
  void run(const Point& p, Measurement& m) const override {
    run_collective(p, m, "broadcast", [](const CollectiveCall& c) {
      return ncclBroadcast(c.send, c.recv, c.count, c.dtype, /*root=*/0, c.comm, c.stream);
    });
  }
};

}  // namespace
PTP_REGISTER_MICROBENCH(NcclBroadcast);
}  // namespace ptp::profile::cuda
