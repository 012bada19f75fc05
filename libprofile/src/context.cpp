#include "ptp/profile/context.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <ctime>
#include <fstream>
#include <thread>

#include "ptp/profile/comm.hpp"

#ifndef PTP_VERSION_STRING
#define PTP_VERSION_STRING "unknown"
#endif
#ifndef PTP_BLAS_NAME
#define PTP_BLAS_NAME ""
#endif

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

const char* ptp_version() { return PTP_VERSION_STRING; }

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "";
}
}  // namespace

Row capture_host_context() {
  Row ctx;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) ctx["ctx_hostname"] = host;
  ctx["ctx_cpu"] = cpu_model();
  ctx["ctx_cpus"] = std::to_string(std::thread::hardware_concurrency());
  struct utsname u {};
  if (::uname(&u) == 0) ctx["ctx_os"] = std::string(u.sysname) + " " + u.release;
  ctx["ctx_ptp_version"] = ptp_version();
  ctx["ctx_blas"] = PTP_BLAS_NAME;
  ctx["ctx_mpi"] = Comm::compiled_with_mpi() ? Comm::world().library_version() : "";
  return ctx;
}

}  // namespace ptp::profile
