#pragma once
// SIGINT/SIGTERM set a flag instead of killing the process: the runner finishes the point in flight,
// writes its row and exits. A second signal restores the default action (a stuck point can be killed).
#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

void install_stop_handlers();
bool stop_requested();
int stop_signal_number();  // 0 when none
void request_stop_for_test(int signal_number);

}  // namespace ptp::profile
