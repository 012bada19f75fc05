#pragma once
// A dataset row under construction: column name -> cell text. Benchmarks fill what they know about
// the op, the harness adds timing, status and context; the writer orders cells by the table header.
#include <map>
#include <string>

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

enum class Table { ops, collectives };
const char* table_name(Table t);

using Row = std::map<std::string, std::string>;

std::string format_number(double v);  // shortest round-trippable text, integers without exponent

}  // namespace ptp::profile
