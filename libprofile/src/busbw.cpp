#include "ptp/profile/busbw.hpp"

#include "ptp/vocab/error.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

double bus_factor(const std::string& collective, int ranks) {
  if (ranks < 1) throw InputError("ranks must be >= 1 for " + collective);
  const double n = ranks;
  if (collective == "all_reduce") return 2 * (n - 1) / n;
  if (collective == "reduce_scatter" || collective == "all_gather" || collective == "all_to_all") return (n - 1) / n;
  if (collective == "broadcast" || collective == "reduce" || collective == "send_recv") return 1;
  throw InputError("unknown collective '" + collective +
                   "' (all_reduce, reduce_scatter, all_gather, all_to_all, broadcast, reduce, send_recv)");
}

double algbw_GBps(double size_bytes, double time_s) { return time_s > 0 ? size_bytes / time_s / 1e9 : 0; }

double busbw_GBps(const std::string& collective, int ranks, double size_bytes, double time_s) {
  return algbw_GBps(size_bytes, time_s) * bus_factor(collective, ranks);
}

}  // namespace ptp::profile
