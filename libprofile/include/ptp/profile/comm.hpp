#pragma once
// Process group for multi-rank runs. MPI is initialised only when the process was started by an MPI
// launcher (mpirun/srun set OMPI_COMM_WORLD_SIZE / PMI_SIZE / PMIX_RANK); otherwise this is a single
// rank and no MPI call is made. The MPI calls live in a plugin (libptp_profile_mpi.so, see
// plugins.hpp) loaded on first need. Built without MPI, world() is always a single rank.
#include <cstddef>
#include <string>

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

class MpiRuntime;

class Comm {
 public:
  static Comm& world();  // loads the MPI plugin and initialises MPI on first use under an MPI launcher
  static bool compiled_with_mpi();
  static bool launched_by_mpi();
  // Finalises MPI if world() initialised it; never starts it (ends main, whatever ran before).
  static void finalize_world();
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool active() const { return active_; }
  std::string library_version() const;  // loads the MPI plugin; "" when built without MPI

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
  MpiRuntime* mpi_ = nullptr;  // set while MPI is active
  int rank_ = 0, size_ = 1;
  bool active_ = false;
};

}  // namespace ptp::profile
