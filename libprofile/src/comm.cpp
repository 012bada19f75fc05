// Comm: a single rank unless an MPI launcher started us; then every call goes to the MPI plugin,
// loaded here on first need so that runs without MPI never load an MPI library.
#include "ptp/profile/comm.hpp"

#include <cstdlib>

#include "mpi_runtime.hpp"
#include "ptp/profile/plugins.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

namespace {

MpiRuntime*& loaded_runtime() {
  static MpiRuntime* runtime = nullptr;
  return runtime;
}

#ifdef PTP_MPI_PLUGIN_FILE
MpiRuntime& mpi_runtime() {
  if (!loaded_runtime())
    loaded_runtime() =
        reinterpret_cast<MpiRuntime* (*)()>(plugin_symbol(PTP_MPI_PLUGIN_FILE, "ptp_profile_mpi_runtime"))();
  return *loaded_runtime();
}
#endif

Comm*& started_world() {
  static Comm* world = nullptr;
  return world;
}

}  // namespace

#ifdef PTP_MPI_PLUGIN_FILE
bool Comm::compiled_with_mpi() { return true; }

bool Comm::launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MV2_COMM_WORLD_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

Comm::Comm() {
  if (!launched_by_mpi()) return;
  mpi_ = &mpi_runtime();
  mpi_->init(rank_, size_);
  active_ = true;
}

std::string Comm::library_version() const { return mpi_runtime().library_version(); }
#else
bool Comm::compiled_with_mpi() { return false; }
bool Comm::launched_by_mpi() { return false; }
Comm::Comm() = default;
std::string Comm::library_version() const { return ""; }
#endif

Comm& Comm::world() {
  static Comm c;
  started_world() = &c;
  return c;
}

void Comm::finalize_world() {
  if (started_world()) started_world()->finalize();
}

void Comm::barrier() {
  if (active_) mpi_->barrier();
}

bool Comm::agree(bool rank0_value) { return agree_int(rank0_value ? 1 : 0) != 0; }

int Comm::agree_int(int rank0_value) {
  if (active_) mpi_->broadcast(&rank0_value, sizeof rank0_value);
  return rank0_value;
}

double Comm::max(double v) { return active_ ? mpi_->max(v) : v; }

void Comm::broadcast(void* data, std::size_t bytes) {
  if (active_) mpi_->broadcast(data, bytes);
}

void Comm::all_reduce_sum_f32(float* data, std::size_t count) {
  if (active_) mpi_->all_reduce_sum_f32(data, count);
}

void Comm::all_reduce_sum_f64(double* data, std::size_t count) {
  if (active_) mpi_->all_reduce_sum_f64(data, count);
}

void Comm::finalize() {
  if (active_) mpi_->finalize();
  active_ = false;
}

void Comm::abort(int code) {
  if (loaded_runtime()) loaded_runtime()->abort(code);  // MPI_Abort if MPI is up
  std::_Exit(code);
}

}  // namespace ptp::profile
