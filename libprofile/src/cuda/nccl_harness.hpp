#pragma once
// NCCL collectives harness (nccl-tests conventions): size_bytes is the largest buffer of the
// operation, algbw = size / time, busbw = algbw * bus factor. One process driving every visible GPU
// (ranks <= devices), or one GPU per process when launched by mpirun/srun (ranks = world size).
#include <nccl.h>

#include <functional>

#include "ptp/profile/microbenchmark.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {

struct CollectiveCall {
  ncclComm_t comm;
  cudaStream_t stream;
  void* send;
  void* recv;
  std::size_t count;  // elements of the largest buffer (a multiple of nranks for all_gather/reduce_scatter)
  ncclDataType_t dtype;
  int rank, nranks;
};

using CollectiveLaunch = std::function<ncclResult_t(const CollectiveCall&)>;

std::vector<AxisSpec> collective_axes();
Work describe_collective(const Point& p, const std::string& collective);
// Skips sizes that round to zero elements for dtype x ranks; launches each sample's collective
// enough times (same on every rank) that a sample lasts about 1 ms, and reports time per call.
// Multi-process: setup failures are agreed on; a failure or a stall after that ends every rank
// with MPI_Abort. Single process: the caller's current device is restored afterwards.
void run_collective(const Point& p, Measurement& m, const std::string& collective, const CollectiveLaunch& launch);

}  // namespace ptp::profile::cuda
