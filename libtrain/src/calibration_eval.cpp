#include "ptp/train/calibration_eval.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "ptp/train/evaluation.hpp"

#include "ptp/train/vocabulary.hpp"

namespace ptp::train {

namespace {

std::string layout_of(const JobSpec& j) {
  const auto& p = j.parallelism;
  return std::to_string(p.tensor) + "/" + std::to_string(p.pipeline) + "/" + std::to_string(p.context) + "/" +
         std::to_string(p.virtual_pipeline) + "/" + std::to_string(p.expert) + "/" + sharding_name(j.sharding) + "/" +
         recompute_name(j.activation_checkpointing);
}
std::string batch_of(const JobSpec& j) {
  char b[96];
  std::snprintf(b, sizeof b, "%g/%g/%d/%d/%g", j.batch_size, j.batch_tokens, j.seq_len, j.grad_accum,
                j.global_batch_size.value_or(0));
  return b;
}

// The transfer kinds separating a calibration run from a predicted one (several at once is common:
// a bigger cluster on another GPU).
std::vector<std::string> transfer_kinds(const JobSpec& from, const JobSpec& to) {
  std::vector<std::string> kinds;
  if (from.cluster.num_gpus != to.cluster.num_gpus) kinds.emplace_back("gpu_count");
  if (from.cluster.gpu != to.cluster.gpu) kinds.emplace_back("gpu_type");
  if (from.precision != to.precision) kinds.emplace_back("precision");
  if (batch_of(from) != batch_of(to)) kinds.emplace_back("batch");
  if (layout_of(from) != layout_of(to)) kinds.emplace_back("layout");
  return kinds;
}

// Smallest and largest configuration of a stack: fewest GPUs, then least work per step.
double work_per_gpu(const JobSpec& j) {
  const double tokens = j.batch_tokens > 0 ? j.batch_tokens : j.batch_size * std::max(1, j.seq_len);
  return tokens * j.grad_accum;
}
bool smaller(const JobSpec& a, const JobSpec& b) {
  if (a.cluster.num_gpus != b.cluster.num_gpus) return a.cluster.num_gpus < b.cluster.num_gpus;
  return work_per_gpu(a) < work_per_gpu(b);
}

// The same key ptp-predict builds from a prediction (transfer_key), here from the run's job.
TransferKey key_of(const JobSpec& j) {
  Prediction p;
  p.gpu = j.cluster.gpu;
  p.precision = j.precision;
  p.num_gpus = j.cluster.num_gpus;
  p.batch_size = j.batch_tokens > 0 ? j.batch_tokens : j.batch_size;
  p.seq_len = j.seq_len;
  p.grad_accum = j.grad_accum;
  const auto& par = j.parallelism;
  p.layout.tensor = par.tensor, p.layout.pipeline = par.pipeline, p.layout.context = par.context;
  p.layout.virtual_pipeline = par.virtual_pipeline, p.layout.expert = par.expert;
  p.layout.sharding = j.sharding;
  p.layout.activation_checkpointing = j.activation_checkpointing;
  return transfer_key(p);
}
CalibrationPoint point_of(const CalibrationEvalRow& r) { return {r.run_id, r.parts, r.measured_s, key_of(r.job)}; }

double ape(double predicted, double measured) { return 100.0 * std::fabs(predicted - measured) / measured; }

// Errors of (calibration run, predicted run) pairs. A stack with n runs has n(n-1) pairs, so a few
// large stacks (Lambda's hundreds of runs per model) dominate pair means; the stack-weighted mean
// (each stack's MAPE, averaged over stacks) is what one user calibrating one stack can expect.
struct Errors {
  std::vector<double> uncalibrated, calibrated;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> by_stack;
  void add(const std::string& stack, double u, double c) {
    uncalibrated.push_back(u), calibrated.push_back(c);
    by_stack[stack].first.push_back(u), by_stack[stack].second.push_back(c);
  }
  nlohmann::json json() const {
    double su = 0, sc = 0;
    for (const auto& [stack, e] : by_stack) su += error_stats(e.first).mape, sc += error_stats(e.second).mape;
    const double n = std::max<double>(1, static_cast<double>(by_stack.size()));
    auto round2 = [](double v) { return std::round(v * 100) / 100; };
    return {{"pairs", uncalibrated.size()},
            {"stacks", by_stack.size()},
            {"uncalibrated", to_json(error_stats(uncalibrated))},
            {"calibrated", to_json(error_stats(calibrated))},
            {"stack_weighted", {{"uncalibrated_mape", round2(su / n)}, {"calibrated_mape", round2(sc / n)}}}};
  }
};


// Leave one row out: the row's stack-mates that stand in `relation` to it are the points.
struct RowGroup {
  const char* name;
  const char* description;
  bool (*relation)(const JobSpec& point, const JobSpec& row);
};
const std::vector<RowGroup>& row_groups() {
  static const std::vector<RowGroup> groups{
      {"same_gpu_other_scale", "same GPU and precision, other GPU counts",
       [](const JobSpec& a, const JobSpec& b) {
         return a.cluster.gpu == b.cluster.gpu && a.precision == b.precision && a.cluster.num_gpus != b.cluster.num_gpus;
       }},
      {"other_gpu", "same precision, other GPU types",
       [](const JobSpec& a, const JobSpec& b) { return a.cluster.gpu != b.cluster.gpu && a.precision == b.precision; }},
      {"other_precision", "same GPU type, other precisions",
       [](const JobSpec& a, const JobSpec& b) { return a.cluster.gpu == b.cluster.gpu && a.precision != b.precision; }},
  };
  return groups;
}

nlohmann::json one_run_metrics(const std::vector<CalibrationEvalRow>& rows,
                               const std::map<std::string, std::vector<std::size_t>>& stacks, const CalibrationPriors& priors) {
  Errors overall, smallest_to_largest;
  std::map<std::string, Errors> by_kind, by_single_kind, by_source;
  for (const auto& [stack, members] : stacks) {
    if (members.size() < 2) continue;
    for (const std::size_t ai : members) {
      const auto fit = fit_calibration({point_of(rows[ai])}, priors);
      for (const std::size_t bi : members) {
        if (ai == bi) continue;
        const auto& from = rows[ai];
        const auto& to = rows[bi];
        const double u = ape(to.parts.total(), to.measured_s), c = ape(fit.seconds(to.parts), to.measured_s);
        overall.add(stack, u, c);
        by_source[stack.substr(0, stack.find(' '))].add(stack, u, c);
        const auto kinds = transfer_kinds(from.job, to.job);
        for (const auto& k : kinds) by_kind[k].add(stack, u, c);
        by_single_kind[kinds.empty() ? "same_configuration" : kinds.size() == 1 ? kinds.front() : "several"].add(stack, u, c);
      }
    }
    std::size_t lo = members.front(), hi = members.front();
    for (std::size_t i : members) {
      if (smaller(rows[i].job, rows[lo].job)) lo = i;
      if (smaller(rows[hi].job, rows[i].job)) hi = i;
    }
    if (smaller(rows[lo].job, rows[hi].job)) {
      const auto fit = fit_calibration({point_of(rows[lo])}, priors);
      smallest_to_largest.add(stack, ape(rows[hi].parts.total(), rows[hi].measured_s), ape(fit.seconds(rows[hi].parts), rows[hi].measured_s));
    }
  }
  nlohmann::json m;
  m["overall"] = overall.json();
  m["smallest_to_largest"] = smallest_to_largest.json();
  for (const auto& [k, e] : by_kind) m["by_transfer_kind"][k] = e.json();
  for (const auto& [k, e] : by_single_kind) m["by_single_transfer_kind"][k] = e.json();
  for (const auto& [k, e] : by_source) m["by_source"][k] = e.json();
  m["by_stack"] = nlohmann::json::object();
  for (const auto& [stack, e] : overall.by_stack)
    m["by_stack"][stack] = {{"runs", stacks.at(stack).size()}, {"pairs", e.first.size()},
                            {"uncalibrated_mape", error_stats(e.first).mape}, {"calibrated_mape", error_stats(e.second).mape}};
  return m;
}

nlohmann::json leave_one_row_out_metrics(const std::vector<CalibrationEvalRow>& rows,
                                         const std::map<std::string, std::vector<std::size_t>>& stacks,
                                         const CalibrationPriors& priors) {
  nlohmann::json m;
  for (const auto& group : row_groups()) {
    Errors e;
    for (const auto& [stack, members] : stacks)
      for (const std::size_t ri : members) {
        std::vector<CalibrationPoint> points;
        for (const std::size_t pi : members)
          if (pi != ri && group.relation(rows[pi].job, rows[ri].job)) points.push_back(point_of(rows[pi]));
        if (points.empty()) continue;
        const auto& row = rows[ri];
        e.add(stack, ape(row.parts.total(), row.measured_s), ape(fit_calibration(points, priors).seconds(row.parts), row.measured_s));
      }
    m[group.name] = e.json();
    m[group.name]["points_are"] = group.description;
  }
  return m;
}

std::string cell(const nlohmann::json& v) { return v.is_null() ? "-" : v.dump(); }

// One table row of error figures: stacks, pairs, uncalibrated and calibrated MAPE and median (pair-
// weighted), calibrated MAPE stack-weighted.
std::string figures_row(const std::string& label, const nlohmann::json& e) {
  return "| " + label + " | " + cell(e["stacks"]) + " | " + cell(e["pairs"]) + " | " + cell(e["uncalibrated"]["mape"]) +
         " | " + cell(e["uncalibrated"]["median_ape"]) + " | " + cell(e["calibrated"]["mape"]) + " | " +
         cell(e["calibrated"]["median_ape"]) + " | " + cell(e["stack_weighted"]["uncalibrated_mape"]) + " | " +
         cell(e["stack_weighted"]["calibrated_mape"]) + " |\n";
}
const char* kFiguresHead =
    "| stacks | pairs | uncalibrated MAPE % | uncalibrated median % | calibrated MAPE % | calibrated median % | "
    "uncalibrated MAPE %, stack-weighted | calibrated, stack-weighted |\n";
const char* kFiguresRule = "|---|---|---|---|---|---|---|---|---|\n";

}  // namespace

CalibrationEvaluation evaluate_calibration(const std::vector<CalibrationBase>& bases, const CalibrationPriors& priors) {
  CalibrationEvaluation out;
  auto& m = out.metrics;
  m["method"] = "within each stack (source table or file, framework, container or benchmark version, model, task): "
                "leave one row out (the row's stack-mates in one relation to it are the points) and one run "
                "(each run calibrates each other); on each base";
  std::string md =
      "# Calibration on public data\n\nWithin each software stack (same source table or file, framework, container "
      "or benchmark version, model and task). Absolute percentage errors of the step time; pair-weighted figures are "
      "dominated by the largest stacks (Lambda's hundreds of runs per model), stack-weighted ones average each "
      "stack's MAPE (what one user calibrating one stack can expect).\n\nBases (the uncalibrated prediction the "
      "stack's factors act on):\n\n";
  for (const auto& base : bases) md += "- `" + base.name + "`: " + base.description + "\n";
  std::string lor = "\n## Leave one row out\n\nEach run predicted with the stack's other runs in one relation to it as "
                    "the measured points.\n\n| points | base " + std::string(kFiguresHead) + "|---" + kFiguresRule;
  std::string one_run;
  for (const auto& base : bases) {
    std::map<std::string, std::vector<std::size_t>> stacks;
    for (std::size_t i = 0; i < base.rows.size(); ++i) stacks[base.rows[i].stack].push_back(i);
    int groups = 0;
    for (const auto& [stack, members] : stacks) groups += members.size() >= 2;
    auto& b = m["bases"][base.name];
    b["description"] = base.description;
    b["stacks"] = groups;
    b["leave_one_row_out"] = leave_one_row_out_metrics(base.rows, stacks, priors);
    b["one_run"] = one_run_metrics(base.rows, stacks, priors);
    for (const auto& group : row_groups())
      lor += figures_row(std::string(group.description) + " | " + base.name, b["leave_one_row_out"][group.name]);
    const auto& r = b["one_run"];
    one_run += "\n### Base `" + base.name + "`\n\n| calibration run and predicted run differ in " + kFiguresHead + kFiguresRule;
    one_run += figures_row("anything (all pairs)", r["overall"]);
    one_run += figures_row("smallest -> largest configuration", r["smallest_to_largest"]);
    for (const auto& [k, e] : r["by_transfer_kind"].items()) one_run += figures_row(k + " (and maybe more)", e);
    for (const auto& [k, e] : r["by_single_transfer_kind"].items()) one_run += figures_row("only: " + k, e);
    for (const auto& [k, e] : r["by_source"].items()) one_run += figures_row("source " + k, e);
  }
  md += lor + "\n## One run\n\nEach run in turn is the one measured step; every other run of its stack is predicted.\n" +
        one_run;
  const auto& first = m["bases"][bases.front().name]["one_run"]["by_stack"];
  md += "\n## By stack (base `" + bases.front().name +
        "`, one run, all pairs)\n\n| stack | runs | pairs | uncalibrated MAPE % | calibrated MAPE % |\n|---|---|---|---|---|\n";
  for (const auto& [stack, e] : first.items()) {
    char cells[96];
    std::snprintf(cells, sizeof cells, " | %d | %d | %.2f | %.2f |\n", e["runs"].get<int>(), e["pairs"].get<int>(),
                  e["uncalibrated_mape"].get<double>(), e["calibrated_mape"].get<double>());
    md += "| " + stack + cells;
  }
  out.markdown = md;
  return out;
}

}  // namespace ptp::train
