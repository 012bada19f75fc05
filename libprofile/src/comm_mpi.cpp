// Comm backed by MPI (compiled when CMake finds MPI). MPI is initialised lazily and only when an MPI
// launcher started us, so a plain `ptp-profile` run never pays for (or depends on) an MPI runtime.
#include <mpi.h>

#include <cstdlib>
#include <stdexcept>

#include "ptp/profile/comm.hpp"

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
}  // namespace

bool Comm::compiled_with_mpi() { return true; }

bool Comm::launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MV2_COMM_WORLD_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

Comm::Comm() {
  if (!launched_by_mpi()) return;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) check(MPI_Init(nullptr, nullptr), "MPI_Init");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  active_ = true;
}

Comm& Comm::world() {
  static Comm c;
  return c;
}

std::string Comm::library_version() const {
  char v[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(v, &len);
  std::string s(v, static_cast<std::size_t>(len));
  const auto comma = s.find(',');  // "Open MPI v4.1.4, package: ..." -> "Open MPI v4.1.4"
  return s.substr(0, comma);
}

void Comm::barrier() {
  if (active_) check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

bool Comm::agree(bool rank0_value) { return agree_int(rank0_value ? 1 : 0) != 0; }

int Comm::agree_int(int rank0_value) {
  if (active_) check(MPI_Bcast(&rank0_value, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return rank0_value;
}

double Comm::max(double v) {
  if (active_) check(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  return v;
}

void Comm::broadcast(void* data, std::size_t bytes) {
  if (active_) check(MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
}

void Comm::all_reduce_sum_f32(float* data, std::size_t count) {
  if (active_)
    check(MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD),
          "MPI_Allreduce");
}

void Comm::all_reduce_sum_f64(double* data, std::size_t count) {
  if (active_)
    check(MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(count), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
          "MPI_Allreduce");
}

void Comm::finalize() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (active_ && !finalized) MPI_Finalize();
  active_ = false;
}

void Comm::abort(int code) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

}  // namespace ptp::profile
