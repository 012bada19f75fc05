// all_reduce across the ranks of an MPI launch (shared memory between local ranks on one node).
// Every rank runs each sample; the sample time is the slowest rank's, as nccl-tests reports.
#include <chrono>

#include "host_buffers.hpp"
#include "ptp/profile/comm.hpp"
#include "ptp/profile/microbenchmark.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::host {
namespace {

class HostAllReduce final : public Microbenchmark {
 public:
  std::string name() const override { return "host_all_reduce"; }
  Backend backend() const override { return Backend::host; }
  Table table() const override { return Table::collectives; }
  std::vector<AxisSpec> axes() const override {
    return {{"size_bytes", "", "message size per rank"},
            {"dtype", "fp32", "fp32 | fp64"},
            {"ranks", "2", "ranks the point needs (must equal the mpirun -np)"}};
  }
  Work describe(const Point& p) const override {
    const std::string& dtype = p.text("dtype");
    if (dtype != "fp32" && dtype != "fp64") throw InputError(p.id() + ": host all_reduce dtype must be fp32 or fp64");
    const double size = static_cast<double>(p.integer("size_bytes"));
    const auto ranks = static_cast<int>(p.integer("ranks"));
    const double elem = dtype == "fp32" ? 4 : 8;
    if (size < elem || ranks < 1) throw InputError(p.id() + ": size_bytes must hold one element and ranks >= 1");
    Work w;
    w.link_bytes = size * 2.0 * (ranks - 1) / ranks;
    w.gpus = 0;  // no GPU held
    w.alloc_bytes = size;
    w.fields = {{"collective", "all_reduce"}, {"size_bytes", p.text("size_bytes")}, {"dtype", dtype},
                {"ranks", p.text("ranks")},   {"nodes", "1"},                      {"ranks_per_node", p.text("ranks")},
                {"fabric_intra", "shm"},      {"algorithm", "mpi"},                {"in_place", "1"}};
    return w;
  }
  void run(const Point& p, Measurement& meas) const override {
    Comm& comm = Comm::world();
    const auto ranks = static_cast<int>(p.integer("ranks"));
    if (!comm.active() || comm.size() != ranks)
      throw PointFailure(PointStatus::skipped, "needs " + std::to_string(ranks) + " MPI ranks; launched with " +
                                        std::to_string(comm.size()) + " (use mpirun -np " + std::to_string(ranks) + ")");
    const bool f32 = p.text("dtype") == "fp32";
    const auto count = static_cast<std::size_t>(p.integer("size_bytes")) / (f32 ? 4 : 8);
    auto a = allocate<float>(f32 ? count : 0, "buffer");
    auto d = allocate<double>(f32 ? 0 : count, "buffer");
    meas.set_agreement([&](bool stop) { return comm.agree(stop); });
    meas.measure([&] {
      comm.barrier();
      const auto t0 = std::chrono::steady_clock::now();
      if (f32) comm.all_reduce_sum_f32(a.data(), count);
      else comm.all_reduce_sum_f64(d.data(), count);
      return comm.max(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    });
  }
};

}  // namespace
PTP_REGISTER_MICROBENCH(HostAllReduce);
}  // namespace ptp::profile::host
