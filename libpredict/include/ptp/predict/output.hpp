#pragma once
// Printers: one result model (Prediction), several renderings. Rendering returns strings so the CLI
// writes nothing until every job has been predicted (no partial output on a bad input).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ptp/predict/prediction.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

struct SearchResult;  // search.hpp

struct SweepRow {
  std::vector<std::pair<std::string, std::string>> settings;  // the swept key=value pairs of this row
  Prediction prediction;
};

// Version of the JSON/JSONL/CSV layouts below; every JSON object carries it with the tool version
// (`ptp: {version, output_schema}`). Bump it when a field is renamed or removed.
inline constexpr int kOutputSchemaVersion = 1;
nlohmann::json tool_json();  // {version, output_schema}

nlohmann::json prediction_json(const Prediction& p);
std::string render_json(const Prediction& p);                     // one pretty object
std::string render_jsonl(const std::vector<SweepRow>& rows);      // one compact object per line
std::string render_csv(const std::vector<SweepRow>& rows);        // header + one line per row
std::string render_table(const Prediction& p);                    // readable report of one job
std::string render_sweep_table(const std::vector<SweepRow>& rows);  // one line per row, speed-up vs first
std::string render_chrome_trace(const Prediction& p);             // Perfetto / chrome://tracing JSON
// #SBATCH --time (band's upper end + evaluations + checkpoints, + kSlurmTimeMargin, whole minutes),
// --nodes and --gpus-per-node, with comment lines saying how each was derived.
std::string render_slurm(const Prediction& p);
inline constexpr double kSlurmTimeMargin = 0.10;
std::string slurm_time_limit(double seconds);  // "HH:MM:00" or "D-HH:MM:00", rounded up, at least 1 minute
// Micro-batches render_chrome_trace draws (the first 64; later ones repeat them), and its layer
// events: forward and backward per layer for each of them.
int chrome_trace_microbatches(const Prediction& p);
double chrome_trace_layer_events(const Prediction& p);

std::string human_duration(double seconds);
// A calibration method identifier (CalibrationSummary::method) in words, for the text outputs.
std::string calibration_method_label(const std::string& method);
// The factors a calibrated prediction got, for a table cell: GEMM (of the row's math) / memory-bound
// kernels / communication / host, "0.93/1.10/1.30/1.00"; "-" when it was not calibrated. Each row of
// a sweep or search has its own fit, so its own factors.
std::string calibration_factors_compact(const Prediction& p);
inline constexpr const char* kCalibrationColumn = "calibrated GEMM/mem/comm/host";
// Every factor as name=value;... (CSV cells).
std::string calibration_factors_cell(const CalibrationSummary& c);
// "$40.00/hour ($2.50 per GPU-hour x 16, catalog (Lambda, 2026-05-07))" or why there is no price.
std::string price_text(const Prediction& p);
// One line per GPU of the rows with the price and its source, "price      <gpu>: ...", for the
// tables' footers (the rows show only dollars); "" when every price is the job's own.
std::string price_footer(const std::vector<const Prediction*>& rows);

// One printer per output format, each rendering every kind of result in its format (modelled on
// google/benchmark's reporters): the rows of one or several jobs or of a sweep, rows that are errors
// (a job file that cannot be read when others print) included, and a search. A printer returns the
// text and throws InputError when the results do not suit it (json takes exactly one job).
class Printer {
 public:
  virtual ~Printer() = default;
  virtual std::string predictions(const std::vector<SweepRow>& rows, bool sweep) const = 0;
  // False: `search` throws, and --search refuses the format naming those that print one.
  virtual bool prints_search() const { return true; }
  virtual std::string search(const SearchResult& result) const = 0;
  // True when the text is for people and carries the search's counts itself; a machine-readable
  // format leaves them to stderr (search_summary).
  virtual bool readable() const { return false; }
};

// The formats, registered in one table (src/output/formats.cpp): name, help and printer.
struct OutputFormat {
  const char* name;
  const char* help;
  const Printer& printer;
  std::string render(const std::vector<SweepRow>& rows, bool sweep) const { return printer.predictions(rows, sweep); }
};
const std::vector<OutputFormat>& output_formats();
std::vector<std::string> output_format_names();
const OutputFormat& find_output_format(const std::string& name);  // InputError naming the choices

}  // namespace ptp::predict
