// NCCL send_recv (ring exchange; bus factor 1).
#include "../nccl_harness.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {
namespace {

class NcclSendRecv final : public Microbenchmark {
 public:
  std::string name() const override { return "nccl_send_recv"; }
  Backend backend() const override { return Backend::cuda; }
  Table table() const override { return Table::collectives; }
  std::vector<AxisSpec> axes() const override { return collective_axes(); }
  Work describe(const Point& p) const override { return describe_collective(p, "send_recv"); }
  void run(const Point& p, Measurement& m) const override {
    run_collective(p, m, "send_recv", [](const CollectiveCall& c) {
      // Ring exchange as nccl-tests sendrecv_perf: send to rank+1, receive from rank-1.
      const int next = (c.rank + 1) % c.nranks, prev = (c.rank - 1 + c.nranks) % c.nranks;
      ncclResult_t r = ncclSend(c.send, c.count, c.dtype, next, c.comm, c.stream);
      if (r != ncclSuccess) return r;
      return ncclRecv(c.recv, c.count, c.dtype, prev, c.comm, c.stream);
    });
  }
};

}  // namespace
PTP_REGISTER_MICROBENCH(NcclSendRecv);
}  // namespace ptp::profile::cuda
