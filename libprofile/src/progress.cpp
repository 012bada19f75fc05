#include "ptp/profile/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "ptp/profile/duration.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

bool stderr_is_tty() { return ::isatty(STDERR_FILENO) == 1; }

Progress::Progress(std::size_t total, double estimated_total_s, bool tty)
    : total_(total), estimated_total_s_(estimated_total_s), tty_(tty), start_(std::chrono::steady_clock::now()) {}

double Progress::eta_s(double estimated_done_s) const {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // Scale the remaining planned time by how fast the plan has been so far (calibrates the roofline).
  const double pace = estimated_done_s > 0 ? elapsed / estimated_done_s : 1.0;
  return std::max(0.0, (estimated_total_s_ - estimated_done_s) * pace);
}

void Progress::point_done(const std::string& id, const std::string& status, double time_s, double estimated_done_s) {
  ++done_;
  const std::string eta = format_duration(eta_s(estimated_done_s));
  if (tty_) {
    const int width = 30;
    const int filled = total_ ? static_cast<int>(width * done_ / total_) : width;
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.resize(width, '.');
    std::string shown = id.size() > 50 ? "..." + id.substr(id.size() - 47) : id;
    std::fprintf(stderr, "\r\033[K[%s] %zu/%zu ETA %s  %s", bar.c_str(), done_, total_, eta.c_str(), shown.c_str());
  } else {
    std::fprintf(stderr, "[%zu/%zu] %s %s %.3gs ETA %s\n", done_, total_, id.c_str(), status.c_str(), time_s,
                 eta.c_str());
  }
  std::fflush(stderr);
}

void Progress::note(const std::string& message) {
  std::fprintf(stderr, tty_ ? "\r\033[K%s\n" : "%s\n", message.c_str());
  std::fflush(stderr);
}

void Progress::finish() {
  if (tty_) std::fprintf(stderr, "\n");
  std::fflush(stderr);
}

}  // namespace ptp::profile
