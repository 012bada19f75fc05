#include "nccl_harness.hpp"

#include <chrono>
#include <cstdlib>
#include <memory>

#include "cuda_measure.hpp"
#include "ptp/profile/busbw.hpp"
#include "ptp/profile/comm.hpp"
#include "ptp/vocab/error.hpp"

namespace ptp::profile::cuda {

namespace {

void nccl_check(ncclResult_t r, const char* what) {
  if (r == ncclSuccess) return;
  const std::string msg = std::string(what) + ": " + ncclGetErrorString(r);
  if (r == ncclSystemError || r == ncclRemoteError) throw PointFailure(PointStatus::failed, msg);
  throw std::runtime_error(msg);
}

ncclDataType_t nccl_type(const std::string& dtype, const std::string& where) {
  if (dtype == "fp32") return ncclFloat32;
  if (dtype == "fp16") return ncclFloat16;
  if (dtype == "bf16") return ncclBfloat16;
  throw InputError(where + ": collective dtype must be fp32, fp16 or bf16");
}

int local_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID", "LOCAL_RANK"})
    if (const char* s = std::getenv(v)) return std::atoi(s);
  return 0;
}

// One rank's resources; a single process holds one per device.
struct RankState {
  int device = 0;
  ncclComm_t comm = nullptr;
  std::unique_ptr<Stream> stream;
  DeviceBuffer send, recv;
  ~RankState() {
    if (comm) ncclCommDestroy(comm);
  }
};

}  // namespace

std::vector<AxisSpec> collective_axes() {
  return {{"size_bytes", "", "largest buffer in bytes (nccl-tests size)"},
          {"dtype", "fp32", "fp32 | fp16 | bf16"},
          {"ranks", "", "GPUs taking part (processes x GPUs)"},
          {"in_place", "0", "1: recv buffer aliases send"},
          {"nodes", "1", "nodes the ranks span (multi-process launches; rows only)"}};
}

Work describe_collective(const Point& p, const std::string& collective) {
  const double size = static_cast<double>(p.integer("size_bytes"));
  const auto ranks = static_cast<int>(p.integer("ranks"));
  nccl_type(p.text("dtype"), p.id());
  const auto nodes = static_cast<int>(p.integer("nodes"));
  if (ranks < 1 || size < 1) throw InputError(p.id() + ": size_bytes and ranks must be >= 1");
  if (nodes < 1 || ranks % nodes != 0) throw InputError(p.id() + ": nodes must divide ranks");
  if (p.text("in_place") != "0" && p.text("in_place") != "1") throw InputError(p.id() + ": in_place must be 0 or 1");
  Work w;
  w.link_bytes = size * bus_factor(collective, ranks);
  w.gpus = ranks;
  w.setup_s = 0.2 + 0.05 * ranks;  // communicator creation dominates small points
  w.fields = {{"collective", collective},       {"size_bytes", p.text("size_bytes")}, {"dtype", p.text("dtype")},
              {"ranks", p.text("ranks")},        {"nodes", p.text("nodes")}, {"ranks_per_node", std::to_string(ranks / nodes)},
              {"in_place", p.text("in_place")}};
  return w;
}

void run_collective(const Point& p, Measurement& meas, const CollectiveLaunch& launch) {
  const auto ranks = static_cast<int>(p.integer("ranks"));
  const auto size = static_cast<std::size_t>(p.integer("size_bytes"));
  const ncclDataType_t dtype = nccl_type(p.text("dtype"), p.id());
  const std::size_t elem = p.text("dtype") == "fp32" ? 4 : 2;
  const std::size_t count = size / elem;
  const bool in_place = p.text("in_place") == "1";
  Comm& world = Comm::world();
  int devices = 0;
  PTP_CUDA_CHECK(cudaGetDeviceCount(&devices));

  std::vector<std::unique_ptr<RankState>> local;  // RankState owns a communicator: not copyable
  int first_rank = 0;
  if (world.active() && world.size() > 1) {  // one GPU per process
    if (world.size() != ranks)
      throw PointFailure(PointStatus::skipped, "needs " + std::to_string(ranks) + " ranks, launched with " +
                                        std::to_string(world.size()));
    ncclUniqueId id{};
    if (world.rank() == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    world.broadcast(&id, sizeof id);
    local.push_back(std::make_unique<RankState>());
    local[0]->device = local_rank() % devices;
    PTP_CUDA_CHECK(cudaSetDevice(local[0]->device));
    nccl_check(ncclCommInitRank(&local[0]->comm, ranks, id, world.rank()), "ncclCommInitRank");
    first_rank = world.rank();
  } else {  // every GPU from this process
    if (ranks > devices)
      throw PointFailure(PointStatus::skipped, "needs " + std::to_string(ranks) + " GPUs, " + std::to_string(devices) + " visible");
    std::vector<ncclComm_t> comms(static_cast<std::size_t>(ranks));
    std::vector<int> devs(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r) devs[static_cast<std::size_t>(r)] = r;
    nccl_check(ncclCommInitAll(comms.data(), ranks, devs.data()), "ncclCommInitAll");
    for (int r = 0; r < ranks; ++r) {
      local.push_back(std::make_unique<RankState>());
      local.back()->device = r;
      local.back()->comm = comms[static_cast<std::size_t>(r)];
    }
  }
  for (auto& s : local) {
    PTP_CUDA_CHECK(cudaSetDevice(s->device));
    s->stream = std::make_unique<Stream>();
    s->send = DeviceBuffer(size);
    if (!in_place) s->recv = DeviceBuffer(size);
  }
  const auto sync_all = [&] {
    for (auto& s : local) {
      PTP_CUDA_CHECK(cudaSetDevice(s->device));
      PTP_CUDA_CHECK(cudaStreamSynchronize(s->stream->get()));
    }
  };
  if (world.active() && world.size() > 1) meas.set_agreement([&](bool stop) { return world.agree(stop); });
  meas.measure([&] {
    sync_all();
    world.barrier();
    const auto t0 = std::chrono::steady_clock::now();
    nccl_check(ncclGroupStart(), "ncclGroupStart");
    for (std::size_t i = 0; i < local.size(); ++i) {
      RankState& s = *local[i];
      PTP_CUDA_CHECK(cudaSetDevice(s.device));
      CollectiveCall call{s.comm, s.stream->get(), s.send.get(), in_place ? s.send.get() : s.recv.get(),
                          count, dtype, first_rank + static_cast<int>(i), ranks};
      nccl_check(launch(call), "NCCL collective");
    }
    nccl_check(ncclGroupEnd(), "ncclGroupEnd");
    sync_all();
    return world.max(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  });
}

}  // namespace ptp::profile::cuda
