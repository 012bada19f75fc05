// MEASURED.csv for --calibrate: which job was measured and its steady-state seconds per step.
#include <filesystem>

#include "ptp/predict/calibration.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {
// A calibration file lists a handful of measured configurations; thousands of rows are a mistake
// (a profile dump passed by accident) and each row costs a job-spec parse and a prediction.
constexpr std::size_t kMaxMeasuredSteps = 10'000;
constexpr std::size_t kMaxCsvBytes = 4u << 20;
}  // namespace

std::vector<MeasuredStep> read_measured_steps(const std::string& csv_path) {
  return parse_measured_steps(read_text_file(csv_path, kMaxCsvBytes, "CSV text"), csv_path);
}

std::vector<MeasuredStep> parse_measured_steps(const std::string& text, const std::string& csv_path) {
  const CsvTable csv = CsvTable::parse(text, csv_path);
  csv.require_columns({"job", "step_time_s"});
  if (csv.rows().empty()) throw InputError(csv_path, 0, 0, "", "no measured steps: expected rows of job,step_time_s after the header");
  if (csv.rows().size() > kMaxMeasuredSteps)
    throw InputError(csv_path, 0, 0, "", std::to_string(csv.rows().size()) + " measured steps, more than the limit of " +
                                             std::to_string(kMaxMeasuredSteps));
  const std::filesystem::path folder = std::filesystem::path(csv_path).parent_path();
  std::vector<MeasuredStep> out;
  for (const auto& row : csv.rows()) {
    MeasuredStep m;
    m.line = row.line;
    const std::string& job = csv.text(row, "job");
    if (job.empty())
      throw InputError(csv_path, row.line, static_cast<int>(csv.column("job") + 1), "job", "expected a job-spec YAML path");
    const std::filesystem::path p(job);
    m.job_path = p.is_absolute() || folder.empty() ? p.string() : (folder / p).string();
    m.step_time_s = csv.positive(row, "step_time_s");
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace ptp::predict
