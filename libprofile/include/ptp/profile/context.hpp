#pragma once
// Hardware and software context stamped on every row (ctx_* columns): who measured what, where, with
// which stack. Host facts come from the OS; GPU facts from the CUDA backend when it is used.
#include <string>

#include "ptp/profile/row.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

Row capture_host_context();     // ctx_hostname, ctx_cpu, ctx_cpus, ctx_os, ctx_ptp_version, ctx_blas, ctx_mpi
std::string utc_timestamp();    // ISO 8601, seconds, 'Z'
const char* ptp_version();      // project version + git revision at configure time

}  // namespace ptp::profile
