// Renderings of a search. json is one object (the counts and the ranked rows together); jsonl and csv
// are one record per ranked row, each with the --set flags that reproduce it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "ptp/predict/output.hpp"
#include "ptp/predict/search.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"
#include "../output/text_cells.hpp"
#include "search_fields.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {

using text_cells::fmt;
std::string pad(std::string s, std::size_t w, bool left) {
  return left ? text_cells::pad(std::move(s), w) : text_cells::lpad(std::move(s), w);
}

double speedup(const SearchResult& r, const Prediction& p) {
  return r.job.valid && r.job.samples_per_second > 0 ? p.samples_per_second / r.job.samples_per_second : 0;
}

std::string column_name(const std::string& key) {
  for (const auto& f : search_fields())
    if (f.key == key) return f.column.empty() ? key : f.column;
  return key;
}

nlohmann::json flags_json(const std::vector<Override>& settings) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& [k, v] : settings) a.push_back(k + "=" + v);
  return a;
}

std::string flags_text(const std::vector<Override>& settings) {
  std::string out;
  for (const auto& [k, v] : settings) out += (out.empty() ? "" : " ") + std::string("--set ") + k + "=" + v;
  return out;
}

// Each configuration collapsed into the row, as the flags by which it differs from the row's.
std::vector<std::string> equivalent_flags(const SearchRow& row) {
  std::vector<std::string> out;
  for (const auto& e : row.equivalent) {
    std::vector<Override> differ;
    for (std::size_t i = 0; i < e.size(); ++i)
      if (i >= row.settings.size() || e[i] != row.settings[i]) differ.push_back(e[i]);
    out.push_back(flags_text(differ));
  }
  return out;
}

std::string percent(double fraction) {
  const double p = 100 * fraction;
  return fmt(std::fabs(p) < 10 ? "%.1f" : "%.0f", p);
}

// What the tie margin is made of, for people.
std::string tie_basis(const SearchResult& r) {
  const bool energy = r.objective == SearchObjective::energy || r.objective == SearchObjective::carbon;
  return "a tenth of the best row's 80 % " + std::string(energy ? "energy" : "step-time") + " band, " +
         percent(r.tie_band_low - 1) + " % .. +" + percent(r.tie_band_high - 1) + " %, in log space";
}

nlohmann::json counts_json(const SearchResult& r) {
  return {{"job", r.job_file},
          {"objective", search_objective_name(r.objective)},
          {"axes", r.axes},
          {"configurations", r.configurations},
          {"invalid", r.invalid},
          {"no_fit", r.no_fit},
          {"unpriced", r.unpriced},
          {"unpriced_gpus", r.unpriced_gpus},
          {"ranked", r.ranked},
          {"shown", r.rows.size()},
          {"tie_margin", r.tie_margin},
          {"tie_basis", tie_basis(r)}};
}

nlohmann::json row_json(const SearchResult& r, std::size_t i) {
  const auto& row = r.rows[i];
  return {{"rank", i + 1},
          {"job", r.job_file},
          {"objective", search_objective_name(r.objective)},
          {"objective_value", row.objective},
          {"tie", row.tie},
          {"speedup_vs_job", speedup(r, row.prediction)},
          {"set", flags_json(row.settings)},
          {"changes", row.changes},
          {"equivalent", equivalent_flags(row)}};
}

std::string render_json_object(const SearchResult& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    auto j = row_json(r, i);
    j["prediction"] = prediction_json(r.rows[i].prediction);
    rows.push_back(std::move(j));
  }
  nlohmann::json out = {{"ptp", tool_json()}, {"search", counts_json(r)}, {"job", prediction_json(r.job)}, {"rows", rows}};
  return out.dump(2) + "\n";
}

std::string render_jsonl_rows(const SearchResult& r) {
  std::string out;
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    auto j = prediction_json(r.rows[i].prediction);
    j["search"] = row_json(r, i);
    out += j.dump() + "\n";
  }
  return out;
}

std::string render_csv_rows(const SearchResult& r) {
  std::vector<std::string> header{"rank"};
  for (const auto& a : r.axes) header.push_back(a);
  for (const char* h : {"objective", "objective_value", "iteration_s", "total_seconds", "gpu_hours", "cost_usd",
                        "memory.per_gpu_bytes", "memory.capacity_bytes", "mfu", "speedup_vs_job", "predictor.kind",
                        "set", "usd_per_hour", "usd_per_gpu_hour", "price_source", "price_label", "tie",
                        "equivalent", "job"})
    header.emplace_back(h);
  const bool calibrated = std::any_of(r.rows.begin(), r.rows.end(),
                                      [](const SearchRow& row) { return row.prediction.calibration.applied; });
  if (calibrated) header.emplace_back("calibration.factors");
  std::string out = csv_line(header);
  auto g = [](double v) { return fmt("%.6g", v); };
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const auto& row = r.rows[i];
    const auto& p = row.prediction;
    std::vector<std::string> cells{std::to_string(i + 1)};
    for (std::size_t a = 0; a < r.axes.size(); ++a) cells.push_back(row.settings[a].second);
    const bool total = p.total_steps > 0;
    for (const auto& v :
         {std::string(search_objective_name(r.objective)), g(row.objective), g(p.iteration_s),
          total ? g(p.total_seconds) : std::string(), total ? g(p.gpu_hours) : std::string(),
          total && p.has_cost ? g(p.cost_usd) : std::string(), g(p.memory.per_gpu_bytes), g(p.memory.capacity_bytes),
          g(p.mfu), g(speedup(r, p)), p.predictor_kind, flags_text(row.settings),
          p.has_cost ? g(p.usd_per_hour) : std::string(), p.has_cost ? g(p.price.usd_per_gpu_hour) : std::string(),
          p.price.source, p.price.label})
      cells.push_back(v);
    std::string equivalent;
    for (const auto& e : equivalent_flags(row)) equivalent += (equivalent.empty() ? "" : " | ") + e;
    cells.push_back(row.tie ? "true" : "false");
    cells.push_back(equivalent);
    cells.push_back(r.job_file);
    if (calibrated) cells.push_back(calibration_factors_cell(p.calibration));
    out += csv_line(cells);
  }
  return out;
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

std::string render_table_rows(const SearchResult& r) {
  std::string out = "search: " + r.job_file + ", objective " + search_objective_name(r.objective) +
                    " (lower is better)\n" + job_line(r.job) + "\n" + search_summary(r) + "\n";
  if (r.rows.empty())
    return out + (r.unpriced > 0 ? "no configuration that fits has a price; price its GPUs (configs/gpus/) or --set "
                                   "cost.usd_per_gpu_hour\n"
                                 : "no configuration fits; widen the space (--space) or add GPUs\n");
  out += "ties: = marks a rank within " + percent(r.tie_margin) + " % of the best (" + tie_basis(r) +
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
    const double s = speedup(r, p);
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
    const auto equivalent = equivalent_flags(r.rows[i]);
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

}  // namespace

std::string search_summary(const SearchResult& r) {
  std::string unpriced;
  if (r.unpriced > 0) {
    std::string gpus;
    for (const auto& g : r.unpriced_gpus) gpus += (gpus.empty() ? "" : ", ") + g;
    unpriced = std::to_string(r.unpriced) + " unpriced (no price for " + gpus + ": left out of the cost ranking), ";
  }
  return std::to_string(r.configurations) + " configurations: " + std::to_string(r.invalid) + " invalid, " +
         std::to_string(r.no_fit) + " do not fit in memory (with 5 % headroom), " + unpriced +
         std::to_string(r.ranked) + " ranked";
}

std::string render_search(const SearchResult& r, const std::string& format) {
  if (format == "table") return render_table_rows(r);
  if (format == "json") return render_json_object(r);
  if (format == "jsonl") return render_jsonl_rows(r);
  if (format == "csv") return render_csv_rows(r);
  throw InputError("--format '" + format + "': --search prints table | json | jsonl | csv");
}

}  // namespace ptp::predict
