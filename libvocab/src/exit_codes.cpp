#include "ptp/vocab/exit_codes.hpp"

namespace ptp::vocab {

const std::vector<ExitCodeEntry>& exit_code_table() {
  static const std::vector<ExitCodeEntry> table = {
      {kExitOk, "ok", "all", "done; every row predicted (a sweep's invalid rows included), trained or profiled"},
      {kExitInternalError, "internal error", "all", "a bug in ptp: please report the one-line message"},
      {kExitBadInput, "bad input", "all",
       "a job, CSV, log, bundle or flag was refused with a one-line error naming the file, line and field; with "
       "several job files the others still print"},
      {kExitOverBudget, "over budget", "ptp-predict",
       "a row (the best row of a search) exceeds --max-hours, --max-cost or --max-kwh"},
      {kExitDoesNotFit, "does not fit", "ptp-predict",
       "--require-fit: a row (the best row of a search; a search where no configuration fits) does not fit in GPU memory with its headroom"},
      {kExitNoPointSucceeded, "no point succeeded", "ptp-profile", "points ran and none measured anything (see each row's reason)"},
      {kExitSignalBase, "stopped", "ptp-profile",
       "by signal N (SIGINT: 130, SIGTERM: 143) after finishing the current point; rerun with --resume"},
  };
  return table;
}

namespace {
bool returned_by(const ExitCodeEntry& e, const std::string& tool) {
  return std::string(e.tools) == "all" || std::string(e.tools) == tool;
}
}  // namespace

std::string exit_codes_help(const std::string& tool) {
  std::string out = "exit codes:\n";
  for (const auto& e : exit_code_table()) {
    if (!returned_by(e, tool)) continue;
    const std::string code = e.code == kExitSignalBase ? "128+N" : std::to_string(e.code);
    out += "  " + code + std::string(code.size() < 6 ? 6 - code.size() : 1, ' ') + e.meaning + "\n";
  }
  return out;
}

std::string exit_codes_markdown() {
  std::string out = "| code | tools | meaning |\n|---|---|---|\n";
  for (const auto& e : exit_code_table()) {
    const std::string code = e.code == kExitSignalBase ? "128 + N" : std::to_string(e.code);
    out += "| " + code + " | " + e.tools + " | " + e.name + ": " + e.meaning + " |\n";
  }
  return out;
}

}  // namespace ptp::vocab
