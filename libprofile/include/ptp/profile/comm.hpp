#pragma once
// Process group for multi-rank runs. MPI is initialised only when the process was started by an MPI
// launcher (mpirun/srun set OMPI_COMM_WORLD_SIZE / PMI_SIZE / PMIX_RANK); otherwise this is a single
// rank and no MPI call is made. Built without MPI, world() is always a single rank.
#include <cstddef>
#include <string>

namespace ptp::profile {

class Comm {
 public:
  static Comm& world();  // initialises MPI on first use when launched by an MPI launcher
  static bool compiled_with_mpi();
  static bool launched_by_mpi();
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool active() const { return active_; }
  std::string library_version() const;

  void barrier();
  bool agree(bool rank0_value);                 // rank 0's value on every rank
  int agree_int(int rank0_value);
  double max(double v);
  void broadcast(void* data, std::size_t bytes);
  // In-place sum all_reduce of `count` fp32 or fp64 elements (host all_reduce benchmark).
  void all_reduce_sum_f32(float* data, std::size_t count);
  void all_reduce_sum_f64(double* data, std::size_t count);
  void finalize();
  // Ends every rank of the job now (MPI_Abort on MPI_COMM_WORLD; without MPI, exits this process):
  // for a rank that failed, or hangs, inside a collective the others are blocked in.
  [[noreturn]] void abort(int code);

 private:
  Comm();
  int rank_ = 0, size_ = 1;
  bool active_ = false;
};

}  // namespace ptp::profile
