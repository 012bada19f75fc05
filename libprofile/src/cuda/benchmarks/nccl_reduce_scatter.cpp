// NCCL reduce_scatter (sum; size = input buffer; bus factor (n-1)/n).
#include "../nccl_harness.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {
namespace {

class NcclReduceScatter final : public Microbenchmark {
 public:
  std::string name() const override { return "nccl_reduce_scatter"; }
  Backend backend() const override { return Backend::cuda; }
  Table table() const override { return Table::collectives; }
  std::vector<AxisSpec> axes() const override { return collective_axes(); }
  Work describe(const Point& p) const override { return describe_collective(p, "reduce_scatter"); }
  void run(const Point& p, Measurement& m) const override {
    run_collective(p, m, "reduce_scatter", [](const CollectiveCall& c) {
      const std::size_t per_rank = c.count / static_cast<std::size_t>(c.nranks);  // size = the input buffer
      char* out = static_cast<char*>(c.recv);
      if (c.send == c.recv) out += static_cast<std::size_t>(c.rank) * per_rank * (c.dtype == ncclFloat32 ? 4 : 2);
      return ncclReduceScatter(c.send, out, per_rank, c.dtype, ncclSum, c.comm, c.stream);
    });
  }
};

}  // namespace
PTP_REGISTER_MICROBENCH(NcclReduceScatter);
}  // namespace ptp::profile::cuda
