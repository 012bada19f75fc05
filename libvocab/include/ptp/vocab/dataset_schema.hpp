#pragma once
// The dataset contract between ptp-profile (writes ops/collectives rows) and ptp-train (reads
// ops/collectives/runs). Column order here is the order files are written in.
#include <string>
#include <vector>

namespace ptp::vocab {

inline constexpr const char* kDatasetSchemaVersion = "1";

struct ColumnSpec {
  const char* name;
  const char* unit;  // "" for text
  bool required;     // readers reject files without it
  const char* meaning;
};

struct TableSchema {
  const char* name;  // ops | collectives | runs
  std::vector<ColumnSpec> columns;
  std::vector<std::string> column_names() const;
  std::vector<std::string> required_names() const;
};

const TableSchema& ops_schema();
const TableSchema& collectives_schema();
const TableSchema& runs_schema();

}  // namespace ptp::vocab
