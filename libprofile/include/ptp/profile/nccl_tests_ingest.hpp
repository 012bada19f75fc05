#pragma once
// Converts nccl-tests text output (all_reduce_perf, all_gather_perf, ...) into collectives rows.
#include <string>
#include <vector>

#include "ptp/profile/row.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

struct IngestOptions {
  std::string gpu;                 // catalog id for the gpu column (required: the log only says "NVIDIA A100...")
  std::string collective;          // empty: from the log's "Collective test starting: <x>_perf" line
  int nodes = 1;                   // the log does not say
  int ranks = 0;                   // 0: count the "#  Rank N ... device" lines
  std::string fabric_inter;
  std::string source_ref;          // provenance, e.g. the file name
};

struct IngestResult {
  std::vector<Row> rows;  // out-of-place and in-place rows for every size line
  std::string nccl_version;
  int ranks = 0;
};

// Throws InputError "LOG:line: ..." for lines that look like results but do not parse.
IngestResult ingest_nccl_tests(const std::string& text, const std::string& log_name, const IngestOptions& opt);

}  // namespace ptp::profile
