#include "nccl_harness.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ptp/profile/detail/cuda_choices.hpp"
#include "ptp/profile/detail/cuda_work.hpp"
#include "cuda_measure.hpp"
#include "fill.hpp"
#include "ptp/profile/busbw.hpp"
#include "ptp/profile/comm.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/profile/vocabulary.hpp"

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

// One rank's resources; a single process holds one per device. Torn down on its own device.
struct RankState {
  int device = 0;
  ncclComm_t comm = nullptr;
  std::unique_ptr<Stream> stream;
  DeviceBuffer send, recv;
  RankState() = default;
  RankState(const RankState&) = delete;
  RankState& operator=(const RankState&) = delete;
  ~RankState() {
    cudaSetDevice(device);
    if (comm) ncclCommDestroy(comm);
  }
};

// Puts back the caller's current device when a single-process multi-GPU point is done.
struct DeviceRestore {
  int device = 0;
  bool valid = false;
  DeviceRestore() { valid = cudaGetDevice(&device) == cudaSuccess; }
  ~DeviceRestore() {
    if (valid) cudaSetDevice(device);
  }
  DeviceRestore(const DeviceRestore&) = delete;
  DeviceRestore& operator=(const DeviceRestore&) = delete;
};

// Calls `fire` (which must not return) when kick() has not been called for `timeout_s`: a rank
// whose peer died or failed waits in NCCL forever otherwise.
class Watchdog {
 public:
  Watchdog(double timeout_s, std::function<void()> fire)
      : timeout_(std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(timeout_s))),
        fire_(std::move(fire)) {
    kick();
    thread_ = std::thread([this] { loop(); });
  }
  ~Watchdog() {
    {
      const std::lock_guard<std::mutex> l(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  void kick() {
    const std::lock_guard<std::mutex> l(mu_);
    deadline_ = std::chrono::steady_clock::now() + timeout_;
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> l(mu_);
    while (!done_) {
      if (std::chrono::steady_clock::now() >= deadline_) {
        l.unlock();
        fire_();
        return;
      }
      cv_.wait_until(l, deadline_);
    }
  }
  std::chrono::steady_clock::duration timeout_;
  std::function<void()> fire_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::chrono::steady_clock::time_point deadline_;
  bool done_ = false;
  std::thread thread_;
};

std::size_t elem_bytes(const std::string& dtype) { return dtype == "fp32" ? 4 : 2; }

// What each rank's buffers hold for one point.
struct PointBuffers {
  std::size_t size = 0;
  std::string dtype;
  bool in_place = false;
};

void setup_rank(RankState& s, const PointBuffers& b) {
  PTP_CUDA_CHECK(cudaSetDevice(s.device));
  s.stream = std::make_unique<Stream>();
  s.send = DeviceBuffer(b.size);
  fill_uniform(s.send.get(), b.size / elem_bytes(b.dtype), b.dtype, 11);
  if (!b.in_place) s.recv = DeviceBuffer(b.size);
}

// Multi-process launch, one GPU per process: device and buffers first, and the ranks agree on the
// outcome (a rank that failed here must not leave the others waiting in ncclCommInitRank). The
// communicator comes later, in measure_collective.
void setup_one_gpu_per_process(std::vector<std::unique_ptr<RankState>>& local, Comm& world, int ranks, int devices,
                               const PointBuffers& b) {
  if (world.size() != ranks)
    throw PointFailure(PointStatus::skipped, "needs " + std::to_string(ranks) + " ranks, launched with " +
                                      std::to_string(world.size()));
  local.push_back(std::make_unique<RankState>());
  std::string error;
  try {
    if (devices < 1) throw PointFailure(PointStatus::failed, "no CUDA device on this rank");
    local[0]->device = local_rank() % devices;
    setup_rank(*local[0], b);
  } catch (const std::exception& e) {
    error = "rank " + std::to_string(world.rank()) + ": " + e.what();
  }
  if (world.max(error.empty() ? 0.0 : 1.0) > 0)
    throw PointFailure(PointStatus::failed, error.empty() ? "another rank failed to set up this point" : error);
}

// Single process: every rank is one of this process's GPUs, their communicators made together.
void setup_every_local_gpu(std::vector<std::unique_ptr<RankState>>& local, int ranks, int devices, const PointBuffers& b) {
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
  for (auto& s : local) setup_rank(*s, b);
}

// The collective on this process's ranks: launched in one NCCL group per iteration, timed on the
// slowest rank.
struct CollectiveLoop {
  std::vector<std::unique_ptr<RankState>>& local;
  Comm& world;
  const CollectiveLaunch& launch;
  const cuda_choices::CollectiveCount& cc;
  ncclDataType_t dtype;
  int first_rank, ranks;
  bool in_place;

  void sync_all() const {
    for (auto& s : local) {
      PTP_CUDA_CHECK(cudaSetDevice(s->device));
      PTP_CUDA_CHECK(cudaStreamSynchronize(s->stream->get()));
    }
  }
  void run_iters(int iters) const {
    for (int it = 0; it < iters; ++it) {
      nccl_check(ncclGroupStart(), "ncclGroupStart");
      for (std::size_t i = 0; i < local.size(); ++i) {
        RankState& s = *local[i];
        PTP_CUDA_CHECK(cudaSetDevice(s.device));
        CollectiveCall call{s.comm, s.stream->get(), s.send.get(), in_place ? s.send.get() : s.recv.get(),
                            cc.count, dtype, first_rank + static_cast<int>(i), ranks};
        nccl_check(launch(call), "NCCL collective");
      }
      nccl_check(ncclGroupEnd(), "ncclGroupEnd");
    }
  }
  double timed(int iters) const {
    sync_all();
    world.barrier();
    const auto t0 = std::chrono::steady_clock::now();
    run_iters(iters);
    sync_all();
    return world.max(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
};

// Multi-process ranks make their communicator here, under the watchdog (`dog`, null for a single
// process), then measure.
void measure_collective(const CollectiveLoop& loop, bool multi_process, std::size_t size, Measurement& meas,
                        Watchdog* dog) {
  Comm& world = loop.world;
  if (multi_process) {
    ncclUniqueId id{};
    if (world.rank() == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    world.broadcast(&id, sizeof id);
    PTP_CUDA_CHECK(cudaSetDevice(loop.local[0]->device));
    nccl_check(ncclCommInitRank(&loop.local[0]->comm, loop.ranks, id, world.rank()), "ncclCommInitRank");
    if (dog) dog->kick();
  }
  // Iterations per sample (nccl-tests -n): two untimed calls set up connections, one timed call
  // (slowest rank) sizes the loop so a sample lasts about 1 ms and small messages are not launch
  // overhead. Every rank gets the same count from the agreed time.
  loop.run_iters(2);
  const int iters = cuda_choices::collective_iterations(loop.timed(1));
  std::string notes = "iters_per_sample=" + std::to_string(iters);
  if (loop.cc.bytes != size) notes += "; effective_bytes=" + std::to_string(loop.cc.bytes);
  meas.set("notes", notes);
  if (multi_process) meas.set_agreement([w = &world](bool stop) { return w->agree(stop); });
  meas.measure([&] {
    const double t = loop.timed(iters) / iters;
    if (dog) dog->kick();
    return t;
  });
}

}  // namespace

// The axes and the Work are CPU code shared with plan-only builds (cuda_work.cpp).
std::vector<AxisSpec> collective_axes() { return cuda_work::spec("nccl_all_reduce").axes(); }

Work describe_collective(const Point& p, const std::string& collective) {
  return cuda_work::spec("nccl_" + collective).describe(p);
}

void run_collective(const Point& p, Measurement& meas, const std::string& collective, const CollectiveLaunch& launch) {
  const auto ranks = static_cast<int>(p.integer("ranks"));
  const auto size = static_cast<std::size_t>(p.integer("size_bytes"));
  const ncclDataType_t dtype = nccl_type(p.text("dtype"), p.id());
  const cuda_choices::CollectiveCount cc = cuda_choices::collective_count(collective, size, elem_bytes(p.text("dtype")), ranks);
  if (!cc.skip_reason.empty()) throw PointFailure(PointStatus::skipped, cc.skip_reason);
  const PointBuffers buffers{size, p.text("dtype"), p.text("in_place") == "1"};
  Comm& world = Comm::world();
  const bool multi_process = world.active() && world.size() > 1;
  const DeviceRestore restore;  // declared first: runs after every RankState is torn down
  int devices = 0;
  PTP_CUDA_CHECK(cudaGetDeviceCount(&devices));

  std::vector<std::unique_ptr<RankState>> local;  // RankState owns a communicator: not copyable
  int first_rank = 0;
  if (multi_process) {
    setup_one_gpu_per_process(local, world, ranks, devices, buffers);
    first_rank = world.rank();
  } else {
    setup_every_local_gpu(local, ranks, devices, buffers);
  }
  const CollectiveLoop loop{local, world, launch, cc, dtype, first_rank, ranks, buffers.in_place};
  if (!multi_process) {
    measure_collective(loop, false, size, meas, nullptr);
    return;
  }
  // From here every rank waits on the others: a rank that fails or stalls ends the whole job
  // (MPI_Abort) instead of leaving its peers blocked forever. --resume continues after the point.
  const double timeout = cuda_choices::collective_watchdog_s(meas.rule().max_time_s);
  Watchdog dog(timeout, [&] {
    spdlog::critical("rank {}: {} made no progress for {} s; aborting all ranks", world.rank(), p.id(), timeout);
    world.abort(3);
  });
  try {
    measure_collective(loop, true, size, meas, &dog);
  } catch (const std::exception& e) {
    spdlog::critical("rank {}: {} failed ({}); aborting all ranks so none waits forever", world.rank(), p.id(), e.what());
    world.abort(3);
  }
}

}  // namespace ptp::profile::cuda
