#pragma once
// Output headers: the dataset schema's columns in order (ptp/vocab/dataset_schema.hpp), then the
// profiler's own extra columns (documented in docs/profiling.md), then the ctx_* context columns.
#include <string>
#include <vector>

#include "ptp/profile/row.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

std::vector<std::string> extra_columns(Table t);    // measurement details not in the schema
std::vector<std::string> context_columns();         // ctx_* (same for both tables)
std::vector<std::string> output_header(Table t);    // schema + extra + context

}  // namespace ptp::profile
