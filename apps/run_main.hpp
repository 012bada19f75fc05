#pragma once
// The one way a ptp tool turns a failure into its exit code (ptp/vocab/exit_codes.hpp), so the tools
// cannot drift apart: a command line CLI11 refuses and an InputError are bad input, said in one line
// after the tool's name; any other exception is an internal error. --help and --version exit 0
// through CLI11.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <functional>

#include "ptp/vocab/error.hpp"
#include "ptp/vocab/exit_codes.hpp"

namespace ptp::cli {

inline int run_main(const char* tool, CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "%s: error: %s\n", tool, ptp::vocab::one_line(e.what()).c_str());
    return ptp::vocab::kExitBadInput;
  }
  try {
    return body();
  } catch (const ptp::vocab::InputError& e) {
    std::fprintf(stderr, "%s: error: %s\n", tool, e.what());
    return ptp::vocab::kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", tool, e.what());
    return ptp::vocab::kExitInternalError;
  }
}

}  // namespace ptp::cli
