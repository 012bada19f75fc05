#pragma once
// nccl-tests bandwidth definitions (see nccl-tests doc/PERFORMANCE.md): algbw = size / time and
// busbw = algbw * factor, where the factor makes busbw comparable to the link bandwidth.
#include <string>

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

// all_reduce 2(n-1)/n, reduce_scatter and all_gather (n-1)/n, broadcast/reduce/send_recv 1,
// all_to_all (n-1)/n. Throws InputError for an unknown collective.
double bus_factor(const std::string& collective, int ranks);
double algbw_GBps(double size_bytes, double time_s);  // 1e9 bytes per GB as nccl-tests prints
double busbw_GBps(const std::string& collective, int ranks, double size_bytes, double time_s);

}  // namespace ptp::profile
