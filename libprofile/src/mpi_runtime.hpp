#pragma once
// The interface between Comm and the MPI plugin (libptp_profile_mpi.so): only the MPI calls Comm
// makes. The plugin needs nothing from the harness, so it is loaded by Comm alone.
#include <cstddef>
#include <string>

namespace ptp::profile {

class MpiRuntime {
 public:
  virtual ~MpiRuntime() = default;
  virtual std::string library_version() const = 0;  // callable before init
  virtual void init(int& rank, int& size) = 0;       // MPI_Init unless already initialised
  virtual void barrier() = 0;
  virtual void broadcast(void* data, std::size_t bytes) = 0;  // from rank 0
  virtual double max(double v) = 0;
  virtual void all_reduce_sum_f32(float* data, std::size_t count) = 0;
  virtual void all_reduce_sum_f64(double* data, std::size_t count) = 0;
  virtual void finalize() = 0;          // unless already finalised
  [[noreturn]] virtual void abort(int code) = 0;  // MPI_Abort when MPI is up, else _Exit
};

}  // namespace ptp::profile

// The plugin's one entry point: an MpiRuntime that lives as long as the process.
extern "C" ptp::profile::MpiRuntime* ptp_profile_mpi_runtime();
