#pragma once
// ptp-profile's GPU and MPI code are plugins (libptp_profile_cuda.so, libptp_profile_mpi.so) that are
// dlopen'ed only when a run needs them: --help, --version, the host backend, nccl-tests ingestion and
// every input check run without loading CUDA, cuBLAS, cuDNN, NCCL, CUPTI or MPI (0.5 s of dynamic
// loading before main otherwise). Plugins sit next to the executable that loads them.
#include <string>

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

// Where plugins are loaded from: the directory of the running executable unless set (tests, whose
// executables live elsewhere in the build tree, point it at ptp-profile's directory).
void set_plugin_dir(const std::string& dir);
std::string plugin_dir();

// Loads plugin_dir()/file once (later calls reuse it) and returns its extern "C" `symbol`. Throws
// InputError, one line naming the file and the loader's reason, when either is missing.
void* plugin_symbol(const std::string& file, const char* symbol);

}  // namespace ptp::profile
