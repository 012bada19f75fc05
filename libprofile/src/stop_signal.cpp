#include "stop_signal.hpp"

#include <csignal>

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

namespace {
volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_stop_signal(int sig) {
  if (g_signal != 0) {  // second signal: the user means it
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_signal = sig;
}
}  // namespace

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool stop_requested() { return g_signal != 0; }
int stop_signal_number() { return static_cast<int>(g_signal); }
void request_stop_for_test(int signal_number) { g_signal = signal_number; }

}  // namespace ptp::profile
