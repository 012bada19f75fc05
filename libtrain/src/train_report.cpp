// train_bundle's report (report/): report.md (data use, the overall and ablation-ladder tables, errors
// by codebase, precision, GPU family and model, the lower levels and the interval, from the metrics),
// predictions.csv, calibration.md and the scatter plot.
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>

#include "ptp/vocab/csv.hpp"
#include "ptp/train/thin_support_fit.hpp"
#include "trainer_levels.hpp"

#include "ptp/train/vocabulary.hpp"

namespace ptp::train::detail {

namespace {

std::string overall_row(const std::string& name, const nlohmann::json& block) {
  const auto& o2 = block["overall"];
  return "| " + name + " | " + std::to_string(o2["n"].get<int>()) + " | " + o2["mape"].dump() + " | " +
         o2["median_ape"].dump() + " |\n";
}

// The sections below read `metrics` through the report's own copy (see report_markdown).
std::string overall_section(const TrainOptions& o, std::size_t runs_used, int runs_total, std::size_t op_rows,
                            std::size_t allreduce_rows, nlohmann::json& metrics) {
  std::string md = "# ptp-train report\n\nData: `" + o.data_dir + "` (runs " + std::to_string(runs_used) + " used of " +
                   std::to_string(runs_total) + ", ops " + std::to_string(op_rows) + ", all-reduce " +
                   std::to_string(allreduce_rows) + "). Errors are absolute percentage errors of the step time.\n\n";
  md += "## Data used and skipped\n\n";
  for (const char* table : {"runs", "ops", "collectives"}) md += "- " + data_use_line(table, metrics["data"][table]) + "\n";
  if (!o.cross_validate)
    md += "\nTrained with --no-cv: no held-out residuals, so the bundle's 80 % band is not calibrated (zero "
          "width); ptp-predict warns about it.\n";
  md += "\n";
  md += "## Overall\n\n| predictor / split | rows | MAPE % | median APE % |\n|---|---|---|---|\n";
  md += overall_row("analytical (no learning)", metrics["analytical"]);
  if (metrics.contains("cv"))
    for (const auto& [split, v] : metrics["cv"].items()) {
      md += overall_row("learned, " + split, v["learned"]);
      if (v.contains("blind")) md += overall_row("precision-blind, " + split, v["blind"]);
    }
  return md;
}

// The 80 % band's coverage per split and workload kind (each kind's bands scaled by the manifest's
// interval.scale_by_kind).
std::string band_by_kind_table(nlohmann::json& metrics) {
  std::set<std::string> kinds;
  for (const auto& [split, v] : metrics["cv"].items())
    if (v.contains("band_coverage_by_kind"))
      for (const auto& [kind, c] : v["band_coverage_by_kind"].items()) kinds.insert(kind);
  if (kinds.empty()) return std::string();
  std::string md = "\n80 % band coverage by workload kind (held-out rows in brackets; band scale per kind " +
                   metrics["interval"].value("scale_by_kind", nlohmann::json::object()).dump() + "):\n\n| split |";
  for (const auto& k : kinds) md += " " + k + " |";
  md += "\n|---|";
  for (std::size_t i = 0; i < kinds.size(); ++i) md += "---|";
  md += "\n";
  for (const auto& [split, v] : metrics["cv"].items()) {
    md += "| " + split + " |";
    for (const auto& k : kinds) {
      const auto& c = v["band_coverage_by_kind"];
      md += c.contains(k) ? " " + c[k]["coverage"].dump() + " (" + c[k]["rows"].dump() + ") |" : " - |";
    }
    md += "\n";
  }
  return md;
}

std::string ladder_section(nlohmann::json& metrics) {
  if (!metrics.contains("ladder")) return std::string();
  std::string md =
      "\n## Ablation ladder (MAPE % on each split's held-out rows)\n\nEach column adds one level: the "
      "analytical composition alone (roofline with efficiency curves); learned op times (compute level) composed with the analytical all-reduce; "
      "plus the learned all-reduce (communication level); plus the aggregator (the full model, cross-validated). "
      "The compute and communication levels train on kernel and collective rows, never on runs. Mean share of "
      "op time the compute level answered over the runs: " +
      metrics["runs"]["compute_learned_share_mean"].dump() + ".\n\n| split | rows | analytical | + compute | + communication | + aggregator (full) | 80 % band holds |\n|---|---|---|---|---|---|---|\n";
  for (const auto& [split, v] : metrics["ladder"].items())
    md += "| " + split + " | " + v["full"]["n"].dump() + " | " + v["analytical"]["mape"].dump() + " | " +
          v["compute"]["mape"].dump() + " | " + v["compute_communication"]["mape"].dump() + " | " +
          v["full"]["mape"].dump() + " | " + metrics["cv"][split]["band_coverage"].dump() + " |\n";
  // Which level pays, said plainly from the figures above.
  int compute_pays = 0, communication_pays = 0, splits = 0;
  for (const auto& [split, v] : metrics["ladder"].items()) {
    ++splits;
    compute_pays += v["compute"]["mape"].get<double>() < v["analytical"]["mape"].get<double>();
    communication_pays += v["compute_communication"]["mape"].get<double>() < v["compute"]["mape"].get<double>();
  }
  md += "\nWhich level pays: learned kernel times beat the analytical composition on " + std::to_string(compute_pays) + " of " +
        std::to_string(splits) + " splits, the learned all-reduce improves on them on " + std::to_string(communication_pays) +
        " of " + std::to_string(splits) +
        ". Both ship anyway: they are the only way a user's own kernel and collective measurements (ptp-profile rows) "
        "reach a forecast, and the aggregator is trained on their composition (README, ptp-train).\n";
  return md + band_by_kind_table(metrics);
}

std::string codebase_section(nlohmann::json& metrics) {
  if (!metrics.contains("by_codebase")) return std::string();
  std::string md = "\n## By codebase, leave-one-codebase-out (MAPE %)\n\nEach codebase's runs predicted by levels trained without "
                   "any run of it (the typical-codebase correction, shrunk by support; no offset of its own). The shrinkage "
                   "of an unknown codebase is fitted on these held-out rows; the last column fits it without the codebase "
                   "it judges, what a stack the bundle never saw can expect.\n\n"
                   "| codebase | rows | analytical | + compute | + communication | + aggregator | + aggregator, shrinkage fitted "
                   "without it |\n|---|---|---|---|---|---|---|\n";
  for (const auto& [cb, v] : metrics["by_codebase"].items())
    md += "| " + cb + " | " + v["full"]["n"].dump() + " | " + v["analytical"]["mape"].dump() + " | " + v["compute"]["mape"].dump() +
          " | " + v["compute_communication"]["mape"].dump() + " | " + v["full"]["mape"].dump() + " | " +
          v["full_nested"]["mape"].dump() + " |\n";
  md += "| macro (mean of codebases) | | " + metrics["by_codebase_macro"]["analytical"].dump() + " | | | " +
        metrics["by_codebase_macro"]["full"].dump() + " | " + metrics["by_codebase_macro"]["full_nested"].dump() + " |\n";
  md += "\nShrinkage of the typical correction (fitted on held-out splits): " + metrics["shrinkage"].dump() +
        "\n\nCodebase offsets (log space, shrunk): " + metrics["codebase_offsets"].dump() + "\n";
  return md;
}

std::string precision_section(nlohmann::json& metrics, const std::set<std::string>& precisions_seen,
                              const std::vector<std::string>& split_names) {
  std::string md = "\n## By precision (MAPE %)\n\n| precision | analytical |";
  for (const auto& s : split_names) md += " " + s + " | " + s + " blind |";
  md += "\n|---|---|";
  for (std::size_t i = 0; i < split_names.size(); ++i) md += "---|---|";
  md += "\n";
  for (const auto& p : precisions_seen) {
    md += "| " + p + " | " + metrics["analytical"]["by_precision"][p]["mape"].dump() + " |";
    for (const auto& s : split_names) {
      auto cell = [&](const char* which) {
        if (!metrics["cv"][s].contains(which)) return std::string("-");
        const auto& g = metrics["cv"][s][which]["by_precision"];
        return g.contains(p) ? g[p]["mape"].dump() + " (n=" + g[p]["n"].dump() + ")" : std::string("-");
      };
      md += " " + cell("learned") + " | " + cell("blind") + " |";
    }
    md += "\n";
  }
  return md;
}

// Learned error per group and split, with the analytical model's beside it. Per model it shows
// where leave-one-model-out error comes from (a held-out model's error is mostly what its
// description leaves out, which no other model can teach the aggregator).
std::string group_section(nlohmann::json& metrics, const std::vector<std::string>& split_names, const std::string& title,
                          const std::string& column, const char* key, const std::vector<std::string>& labels) {
  std::string md = "\n## By " + title + " (MAPE %)\n\n| " + column + " | rows | analytical |";
  for (const auto& s : split_names) md += " " + s + " |";
  md += "\n|---|---|---|";
  for (std::size_t i = 0; i < split_names.size(); ++i) md += "---|";
  md += "\n";
  for (const auto& label : std::set<std::string>(labels.begin(), labels.end())) {
    const auto& a = metrics["analytical"][key][label];
    md += "| " + label + " | " + a["n"].dump() + " | " + a["mape"].dump() + " |";
    for (const auto& s : split_names) {
      const auto& g = metrics["cv"][s]["learned"][key];
      md += " " + (g.contains(label) ? g[label]["mape"].dump() : std::string("-")) + " |";
    }
    md += "\n";
  }
  return md;
}

std::string lower_levels_section(nlohmann::json& metrics) {
  std::string md;
  if (metrics.contains("compute") && metrics.contains("communication"))
    md += "\n## Lower levels\n\n- compute model (op time vs the analytical kernel model), leave-one-GPU-out: " +
        metrics["compute"]["leave_one_gpu_out"].dump() + "; analytical kernel model alone: " +
        metrics["compute"]["analytical_kernel"].dump() + "; roofline bound alone: " + metrics["compute"]["roofline_bound"].dump() +
        "\n- communication model (all-reduce vs ring bound), 5-fold: " + metrics["communication"]["kfold"].dump() +
        "; leave-one-GPU-out: " + metrics["communication"]["leave_one_gpu_out"].dump() +
        "; ring bound alone: " + metrics["communication"]["ring_bound"].dump() +
        "; analytical all-reduce (ptp-predict --analytical, one bucket of the row's size): " +
        metrics["communication"]["analytical"].dump() + "\n";
  if (metrics.contains("compute") && metrics["compute"].contains("leave_one_gpu_out_by_math")) {
    md += "\n### Compute model, leave-one-GPU-out by math mode (kernel time MAPE %, trained on the other GPUs' kernel rows)\n\n"
          "| math / dtype | kernel rows | learned | analytical kernel model | roofline bound | note |\n|---|---|---|---|---|---|\n";
    for (const auto& [label, v] : metrics["compute"]["leave_one_gpu_out_by_math"].items())
      md += "| " + label + " | " + v["learned"]["n"].dump() + " | " +
            (v["learned"]["n"].get<int>() ? v["learned"]["mape"].dump() : std::string("-")) + " | " +
            (v["learned"]["n"].get<int>() ? v["analytical_kernel"]["mape"].dump() : std::string("-")) + " | " +
            (v["learned"]["n"].get<int>() ? v["roofline_bound"]["mape"].dump() : std::string("-")) + " | " +
            v.value("note", std::string()) + " |\n";
  }
  return md;
}

std::string predictions_csv(const std::vector<RunRow>& rows, const AggregatorTable& t,
                            const std::map<std::string, std::vector<double>>& oof_columns) {
  std::string csv = csv_line({"run_id", "model", "gpu", "precision", "num_gpus", "measured_s", "analytical_s",
                              "compute_only_s", "composed_s", "compute_learned_share", "codebase", "kfold_s", "lomo_s", "logo_s",
                              "scale_extrapolation_s", "leave_one_codebase_out_s", "leave_one_precision_out_s"});
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto g = [](double v) {
      char b[32];
      std::snprintf(b, sizeof b, "%.6g", v);
      return std::string(b);
    };
    // In real seconds: the levels' uncapped steps times the GPU's power-cap stretch (analytical_s is
    // then exactly ptp-predict --analytical's answer; the learned columns use the composed step's
    // stretch, which ptp-predict's own, taken on its learned answer, matches to within its phases).
    const double f = t.power_stretch[i];
    auto col = [&](const std::string& n) { return oof_columns.count(n) ? g(f * oof_columns.at(n)[i]) : std::string(); };
    csv += csv_line({t.keys[i], t.models[i], t.gpus[i], t.precisions[i], std::to_string(t.num_gpus[i]), g(f * t.measured[i]),
                     g(f * t.analytical[i]), g(f * rows[i].compute_only), g(f * t.composed[i]), g(rows[i].learned_share), t.codebases[i],
                     col("kfold"), col("leave_one_model_out"), col("leave_one_gpu_out"), col("scale_extrapolation"),
                     col("leave_one_codebase_out"), col("leave_one_precision_out")});
  }
  return csv;
}

}  // namespace

// `metrics` is taken by value: reading a missing entry with operator[] adds a null to this copy (it
// prints as null), as it did when the report was built inline, and never reaches the manifest.
std::string report_markdown(const TrainOptions& o, std::size_t runs_used, int runs_total, std::size_t op_rows,
                            std::size_t allreduce_rows, nlohmann::json metrics, const std::set<std::string>& precisions_seen,
                            const std::vector<std::string>& families, const std::vector<std::string>& models,
                            const std::map<std::string, int>& run_excluded, const std::string& evaluations_md) {
  std::string md = overall_section(o, runs_used, runs_total, op_rows, allreduce_rows, metrics);
  md += ladder_section(metrics);
  md += codebase_section(metrics);
  std::vector<std::string> split_names;
  if (metrics.contains("cv"))
    for (const auto& [split, v] : metrics["cv"].items()) split_names.push_back(split);
  md += precision_section(metrics, precisions_seen, split_names);
  md += thin_support_section(metrics);
  md += group_section(metrics, split_names, "GPU family", "family", "by_gpu_family", families);
  md += group_section(metrics, split_names, "model", "model", "by_model", models);
  md += lower_levels_section(metrics);
  md += evaluations_md;
  md += "\n## Prediction interval\n\n" + metrics["interval"].dump() + "\n\n## Excluded runs\n\n";
  for (const auto& [why, n] : run_excluded) md += "- " + std::to_string(n) + ": " + why + "\n";
  return md;
}

void write_report(const std::string& out_dir, const std::vector<RunRow>& rows, const AggregatorTable& t,
                  const std::map<std::string, std::vector<double>>& oof_columns, const std::string& report_md,
                  const std::string& calibration_md) {
  const std::filesystem::path report_dir = std::filesystem::path(out_dir) / "report";
  std::filesystem::create_directories(report_dir);
  write_file_atomically((report_dir / "report.md").string(), report_md);
  write_file_atomically((report_dir / "predictions.csv").string(), predictions_csv(rows, t, oof_columns));
  if (!calibration_md.empty()) write_file_atomically((report_dir / "calibration.md").string(), calibration_md);
  if (oof_columns.count("leave_one_model_out"))
    write_file_atomically((report_dir / "predicted_vs_measured.svg").string(),
                          scatter_svg(t.measured, oof_columns.at("leave_one_model_out"), t.precisions,
                                      "leave-one-model-out: predicted vs measured step time"));
}

}  // namespace ptp::train::detail
