// Comm without MPI: always one rank; collectives are no-ops on that rank.
#include <cstdlib>

#include "ptp/profile/comm.hpp"

namespace ptp::profile {

bool Comm::compiled_with_mpi() { return false; }
bool Comm::launched_by_mpi() { return false; }
Comm::Comm() = default;
Comm& Comm::world() {
  static Comm c;
  return c;
}
std::string Comm::library_version() const { return ""; }
void Comm::barrier() {}
bool Comm::agree(bool v) { return v; }
int Comm::agree_int(int v) { return v; }
double Comm::max(double v) { return v; }
void Comm::broadcast(void*, std::size_t) {}
void Comm::all_reduce_sum_f32(float*, std::size_t) {}
void Comm::all_reduce_sum_f64(double*, std::size_t) {}
void Comm::finalize() {}
void Comm::abort(int code) { std::_Exit(code); }

}  // namespace ptp::profile
