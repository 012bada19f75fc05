// --format table: for people. One job's report (render_table, several jobs one after another), a
// sweep's one line per row (render_sweep_table), or a search's ranked table with its counts, the
// ties and the flags that reproduce each row.
#include <algorithm>

#include "../search/search_fields.hpp"
#include "printers.hpp"
#include "search_cells.hpp"
#include "text_cells.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::printers {

namespace {

using text_cells::fmt;
std::string pad(std::string s, std::size_t w, bool left) {
  return left ? text_cells::pad(std::move(s), w) : text_cells::lpad(std::move(s), w);
}

std::string column_name(const std::string& key) {
  for (const auto& f : search_fields())
    if (f.key == key) return f.column.empty() ? key : f.column;
  return key;
}

std::string job_line(const Prediction& p) {
  if (!p.valid) return "job as written: invalid (" + p.error + ")";
  std::string s = "job as written: " + fmt("%.3f s/step", p.iteration_s);
  if (p.total_steps > 0) s += ", " + human_duration(p.total_seconds);
  if (p.total_steps > 0 && p.has_cost) s += ", $" + fmt("%.0f", p.cost_usd);
  if (p.has_cost) s += " at $" + fmt("%.2f", p.usd_per_hour) + "/hour";
  s += ", " + fmt("%.1f GiB", p.memory.per_gpu_bytes / kBytesPerGiB) + (p.memory.fits ? "" : " (does not fit)");
  if (p.mfu > 0) s += ", MFU " + fmt("%.1f%%", 100 * p.mfu);
  return s;
}

std::string search_table(const SearchResult& r) {
  std::string out = "search: " + r.job_file + ", objective " + search_objective_name(r.objective) +
                    " (lower is better)\n" + job_line(r.job) + "\n" + search_summary(r) + "\n";
  if (r.rows.empty())
    return out + (r.unpriced > 0 ? "no configuration that fits has a price; price its GPUs (configs/gpus/) or --set "
                                   "cost.usd_per_gpu_hour\n"
                                 : "no configuration fits; widen the space (--space) or add GPUs\n");
  out += "ties: = marks a rank within " + search_cells::percent(r.tie_margin) + " % of the best (" + search_cells::tie_basis(r) +
         "): inside that noise the order is not a prediction\n";
  const bool collapsed = std::any_of(r.rows.begin(), r.rows.end(), [](const SearchRow& row) { return !row.equivalent.empty(); });
  if (collapsed) out += "same prediction: a|b in a cell lists configurations predicting the same (their flags below)\n";
  std::vector<std::string> head{"rank"};
  for (const auto& a : r.axes) head.push_back(column_name(a));
  const std::size_t settings_end = head.size();
  for (const char* h : {"iteration", "total", "cost", "$/hour", "memory", "MFU", "speed-up"}) head.emplace_back(h);
  const bool calibrated = std::any_of(r.rows.begin(), r.rows.end(),
                                      [](const SearchRow& row) { return row.prediction.calibration.applied; });
  if (calibrated) head.emplace_back(kCalibrationColumn);
  std::vector<std::vector<std::string>> table{head};
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const auto& row = r.rows[i];
    const auto& p = row.prediction;
    std::vector<std::string> cells{std::to_string(i + 1) + (row.tie ? "=" : r.rows.front().tie ? " " : "")};
    for (std::size_t a = 0; a < r.axes.size(); ++a) {
      // The row's value, then each equivalent configuration's other values.
      std::vector<std::string> values{row.settings[a].second};
      for (const auto& e : row.equivalent)
        if (std::find(values.begin(), values.end(), e[a].second) == values.end()) values.push_back(e[a].second);
      std::string cell;
      for (const auto& v : values) cell += (cell.empty() ? "" : "|") + v;
      cells.push_back(cell);
    }
    cells.push_back(fmt("%.3f s", p.iteration_s));
    cells.push_back(p.total_steps > 0 ? human_duration(p.total_seconds) : "-");
    cells.push_back(p.total_steps > 0 && p.has_cost ? "$" + fmt("%.0f", p.cost_usd) : "-");
    cells.push_back(p.has_cost ? "$" + fmt("%.2f", p.usd_per_hour) : "-");
    cells.push_back(fmt("%.1f GiB", p.memory.per_gpu_bytes / kBytesPerGiB));
    cells.push_back(p.mfu > 0 ? fmt("%.1f%%", 100 * p.mfu) : "-");
    const double s = search_cells::speedup(r, p);
    cells.push_back(s > 0 ? fmt("%.2fx", s) : "-");
    if (calibrated) cells.push_back(calibration_factors_compact(p));
    table.push_back(cells);
  }
  std::vector<std::size_t> width(head.size(), 0);
  for (const auto& row : table)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  out += "\n";
  for (const auto& row : table) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c)
      line += (c ? "  " : "") + pad(row[c], width[c], c > 0 && c < settings_end);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  out += "\nreproduce a row: ptp-predict " + r.job_file + " <flags>\n";
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    out += pad(std::to_string(i + 1), 4, false) + "  " +
           (r.rows[i].changes.empty() ? std::string("(the job as written)") : r.rows[i].changes);
    const auto equivalent = search_cells::equivalent_flags(r.rows[i]);
    for (std::size_t e = 0; e < equivalent.size(); ++e)
      out += (e ? "; " : "  (the same prediction with ") + equivalent[e];
    out += equivalent.empty() ? "\n" : ")\n";
  }
  for (const auto& row : r.rows)
    if (row.prediction.calibration.applied) {
      out += "calibrated with " + std::to_string(row.prediction.calibration.points) + " measured steps (" +
             calibration_method_label(row.prediction.calibration.method) + "), one fit for every row: the factors "
             "acting on each in the column '" + kCalibrationColumn + "'\n";
      break;
    }
  std::vector<const Prediction*> shown{&r.job};
  for (const auto& row : r.rows) shown.push_back(&row.prediction);
  out += price_footer(shown);
  return out;
}

class TablePrinter final : public Printer {
 public:
  std::string predictions(const std::vector<SweepRow>& rows, bool sweep) const override {
    if (sweep) return render_sweep_table(rows);
    std::string out;
    for (std::size_t i = 0; i < rows.size(); ++i) out += (i ? "\n" : "") + render_table(rows[i].prediction);
    return out;
  }
  std::string search(const SearchResult& r) const override { return search_table(r); }
  bool readable() const override { return true; }
};

}  // namespace

const Printer& table() {
  static const TablePrinter printer;
  return printer;
}

}  // namespace ptp::predict::printers
