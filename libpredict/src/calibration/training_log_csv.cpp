// The format for everything else: a CSV with one row per optimizer step (or per logged interval),
// seconds in step_time_s, optionally the step number in `step` (it going back starts a new run).
#include <cmath>

#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"
#include "training_log_formats.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::training_log {

namespace {

constexpr const char* kTimeColumn = "step_time_s";

std::string_view trimmed_cell(std::string_view c) {
  while (!c.empty() && (c.front() == ' ' || c.front() == '"')) c.remove_prefix(1);
  while (!c.empty() && (c.back() == ' ' || c.back() == '"' || c.back() == '\r')) c.remove_suffix(1);
  return c;
}

}  // namespace

bool csv_signature(std::string_view text) {
  for (std::size_t from = 0; from <= text.size();) {
    const auto comma = std::min(text.find(',', from), text.size());
    if (trimmed_cell(text.substr(from, comma - from)).substr(0, 9) == "step_time") return true;
    from = comma + 1;
  }
  return false;
}

StreamSteps read_csv_steps(const std::string& text, const ReadContext& c) {
  const CsvTable csv = CsvTable::parse(text, c.path);
  if (!csv.has_column(kTimeColumn)) {
    // A time in other units under a name like ours is the one mistake worth naming.
    for (std::size_t i = 0; i < csv.header().size(); ++i)
      if (csv.header()[i].rfind("step_time", 0) == 0)
        throw InputError(c.path, 1, static_cast<int>(i + 1), csv.header()[i],
                         "wrong units: give seconds per step in a step_time_s column");
    csv.require_columns({kTimeColumn});
  }
  if (csv.has_column("job"))
    throw InputError(
        c.path, 1, static_cast<int>(csv.column("job") + 1), "job",
        "a measured-steps CSV (one row per job) is for --calibrate; --calibrate-log reads the steps of one run");
  StreamSteps out;
  for (const auto& row : csv.rows()) {
    const double s = csv.positive(row, kTimeColumn);
    if (s > kMaxStepSeconds)
      csv.fail_cell(row, kTimeColumn,
                    "a step of " + csv.text(row, kTimeColumn) + " s is absurd (more than 1e5 s): wrong units?");
    std::optional<long long> step;
    if (csv.has_column("step"))
      if (const auto n = csv.number(row, "step"); n && *n >= 0 && *n < 1e15)
        step = static_cast<long long>(std::llround(*n));
    out.steps.push_back({row.line, s, step});
  }
  if (out.steps.empty()) out.why_none = "a header and no rows";
  return out;
}

}  // namespace ptp::predict::training_log
