// --format csv: a header and one line per job or sweep row (render_csv), or per ranked search row
// with the search's axes as columns and the flags that reproduce it.
#include <algorithm>

#include "printers.hpp"
#include "ptp/vocab/csv.hpp"
#include "search_cells.hpp"
#include "text_cells.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::printers {

namespace {

std::vector<std::string> search_header(const SearchResult& r, bool calibrated) {
  std::vector<std::string> header{"rank"};
  for (const auto& a : r.axes) header.push_back(a);
  for (const char* h : {"objective", "objective_value", "iteration_s", "total_seconds", "gpu_hours", "cost_usd",
                        "memory.per_gpu_bytes", "memory.capacity_bytes", "mfu", "speedup_vs_job", "predictor.kind",
                        "set", "usd_per_hour", "usd_per_gpu_hour", "price_source", "price_label", "tie",
                        "equivalent", "job"})
    header.emplace_back(h);
  if (calibrated) header.emplace_back("calibration.factors");
  return header;
}

std::vector<std::string> search_cells_of(const SearchResult& r, std::size_t i, bool calibrated) {
  auto g = [](double v) { return text_cells::fmt("%.6g", v); };
  const auto& row = r.rows[i];
  const auto& p = row.prediction;
  std::vector<std::string> cells{std::to_string(i + 1)};
  for (std::size_t a = 0; a < r.axes.size(); ++a) cells.push_back(row.settings[a].second);
  const bool total = p.total_steps > 0;
  for (const auto& v :
       {std::string(search_objective_name(r.objective)), g(row.objective), g(p.iteration_s),
        total ? g(p.total_seconds) : std::string(), total ? g(p.gpu_hours) : std::string(),
        total && p.has_cost ? g(p.cost_usd) : std::string(), g(p.memory.per_gpu_bytes), g(p.memory.capacity_bytes),
        g(p.mfu), g(search_cells::speedup(r, p)), p.predictor_kind, search_cells::flags_text(row.settings),
        p.has_cost ? g(p.usd_per_hour) : std::string(), p.has_cost ? g(p.price.usd_per_gpu_hour) : std::string(),
        p.price.source, p.price.label})
    cells.push_back(v);
  std::string equivalent;
  for (const auto& e : search_cells::equivalent_flags(row)) equivalent += (equivalent.empty() ? "" : " | ") + e;
  cells.push_back(row.tie ? "true" : "false");
  cells.push_back(equivalent);
  cells.push_back(r.job_file);
  if (calibrated) cells.push_back(calibration_factors_cell(p.calibration));
  return cells;
}

class CsvPrinter final : public Printer {
 public:
  std::string predictions(const std::vector<SweepRow>& rows, bool) const override { return render_csv(rows); }

  std::string search(const SearchResult& r) const override {
    const bool calibrated = std::any_of(r.rows.begin(), r.rows.end(),
                                        [](const SearchRow& row) { return row.prediction.calibration.applied; });
    std::string out = csv_line(search_header(r, calibrated));
    for (std::size_t i = 0; i < r.rows.size(); ++i) out += csv_line(search_cells_of(r, i, calibrated));
    return out;
  }
};

}  // namespace

const Printer& csv() {
  static const CsvPrinter printer;
  return printer;
}

}  // namespace ptp::predict::printers
