#pragma once
// The one table of process exit codes, shared by ptp-predict, ptp-train and ptp-profile: each tool
// returns these constants, prints the table in --help, and the README carries the same table (a test
// compares them), so a CI job or a scheduler can branch on the code without reading our source.
#include <string>
#include <vector>

namespace ptp::vocab {

enum ExitCode : int {
  kExitOk = 0,
  kExitInternalError = 1,     // a bug: an exception that is not the user's to fix
  kExitBadInput = 2,          // a YAML, CSV, bundle, log or flag refused with a one-line error
  kExitOverBudget = 3,        // ptp-predict: a row over --max-hours, --max-cost or --max-kwh
  kExitDoesNotFit = 4,        // ptp-predict --require-fit: a row does not fit in GPU memory
  kExitNoPointSucceeded = 5,  // ptp-profile: points ran and none measured anything
};
// ptp-profile stopped by signal N (SIGINT, SIGTERM) after its current point exits 128 + N, as a shell
// reports a killed process; rerun with --resume.
inline constexpr int kExitSignalBase = 128;

struct ExitCodeEntry {
  int code;
  const char* name;     // short, for tables
  const char* tools;    // which tools return it
  const char* meaning;  // when
};
const std::vector<ExitCodeEntry>& exit_code_table();

// "exit codes:\n  0  ok  ...\n" for a CLI11 footer, listing the codes `tool` returns.
std::string exit_codes_help(const std::string& tool);
// The README's Markdown table: | code | tools | meaning |.
std::string exit_codes_markdown();

}  // namespace ptp::vocab
