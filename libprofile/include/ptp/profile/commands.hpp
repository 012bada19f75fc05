#pragma once
// Subcommands beside the sweep runner, kept out of main.cpp so main stays a thin CLI11 layer.
#include <iosfwd>
#include <string>

#include "ptp/profile/nccl_tests_ingest.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

// Converts a nccl-tests log; rows go to `out_csv` (created, or appended to with a matching header)
// or, when empty, to `stdout_stream` with a header. Returns the number of rows.
std::size_t ingest_nccl_tests_command(const std::string& log_path, const IngestOptions& opt,
                                      const std::string& out_csv, std::ostream& stdout_stream);

// Lists registered microbenchmarks with their backend, table and axes.
void list_benchmarks(std::ostream& out);

}  // namespace ptp::profile
