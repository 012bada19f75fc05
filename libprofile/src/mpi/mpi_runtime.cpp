// The MPI plugin (libptp_profile_mpi.so): the MPI calls behind Comm. Loaded only when an MPI launcher
// started ptp-profile, or when a run records the MPI library version on its rows.
#include <mpi.h>

#include <cstdlib>
#include <stdexcept>

#include "../mpi_runtime.hpp"


namespace ptp::profile {

namespace {

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING] = {};
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    throw std::runtime_error(std::string(what) + ": " + msg);
  }
}

class MpiCalls final : public MpiRuntime {
 public:
  std::string library_version() const override {
    char v[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int len = 0;
    MPI_Get_library_version(v, &len);
    std::string s(v, static_cast<std::size_t>(len));
    const auto comma = s.find(',');  // "Open MPI v4.1.4, package: ..." -> "Open MPI v4.1.4"
    return s.substr(0, comma);
  }

  void init(int& rank, int& size) override {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) check(MPI_Init(nullptr, nullptr), "MPI_Init");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }

  void barrier() override { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

  void broadcast(void* data, std::size_t bytes) override {
    check(MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
  }

  double max(double v) override {
    check(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    return v;
  }

  void all_reduce_sum_f32(float* data, std::size_t count) override {
    check(MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD),
          "MPI_Allreduce");
  }

  void all_reduce_sum_f64(double* data, std::size_t count) override {
    check(MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(count), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
          "MPI_Allreduce");
  }

  void finalize() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }

  void abort(int code) override {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
  }
};

}  // namespace
}  // namespace ptp::profile

extern "C" ptp::profile::MpiRuntime* ptp_profile_mpi_runtime() {
  static ptp::profile::MpiCalls runtime;
  return &runtime;
}
