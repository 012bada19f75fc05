// NCCL all_gather (size = output buffer; bus factor (n-1)/n).
#include "../nccl_harness.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {
namespace {

class NcclAllGather final : public Microbenchmark {
 public:
  std::string name() const override { return "nccl_all_gather"; }
  Backend backend() const override { return Backend::cuda; }
  Table table() const override { return Table::collectives; }
  std::vector<AxisSpec> axes() const override { return collective_axes(); }
  Work describe(const Point& p) const override { return describe_collective(p, "all_gather"); }
  void run(const Point& p, Measurement& m) const override {
    run_collective(p, m, "all_gather", [](const CollectiveCall& c) {
      const std::size_t per_rank = c.count / static_cast<std::size_t>(c.nranks);  // size = the output buffer
      const char* in = static_cast<const char*>(c.send);
      if (c.send == c.recv) in += static_cast<std::size_t>(c.rank) * per_rank * (c.dtype == ncclFloat32 ? 4 : 2);
      return ncclAllGather(in, c.recv, per_rank, c.dtype, c.comm, c.stream);
    });
  }
};

}  // namespace
PTP_REGISTER_MICROBENCH(NcclAllGather);
}  // namespace ptp::profile::cuda
