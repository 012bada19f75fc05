#include "ptp/train/calibration_eval.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "ptp/train/evaluation.hpp"

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

}  // namespace

CalibrationEvaluation evaluate_calibration(const std::vector<CalibrationEvalRow>& rows, const CalibrationPriors& priors) {
  std::map<std::string, std::vector<std::size_t>> stacks;
  for (std::size_t i = 0; i < rows.size(); ++i) stacks[rows[i].stack].push_back(i);

  Errors overall, smallest_to_largest;
  std::map<std::string, Errors> by_kind, by_single_kind, by_source;
  int groups = 0;
  for (const auto& [stack, members] : stacks) {
    if (members.size() < 2) continue;
    ++groups;
    for (std::size_t ai = 0; ai < members.size(); ++ai) {
      const auto& from = rows[members[ai]];
      for (std::size_t bi = 0; bi < members.size(); ++bi) {
        if (ai == bi) continue;
        const auto& to = rows[members[bi]];
        const auto fit = fit_calibration({point_of(from)}, key_of(to.job), priors);
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
      const auto fit = fit_calibration({point_of(rows[lo])}, key_of(rows[hi].job), priors);
      smallest_to_largest.add(stack, ape(rows[hi].parts.total(), rows[hi].measured_s), ape(fit.seconds(rows[hi].parts), rows[hi].measured_s));
    }
  }

  CalibrationEvaluation out;
  auto& m = out.metrics;
  m["method"] = "within each stack (source table or file, framework, container or benchmark version, model, task) "
                "with >= 2 runs: calibrate on one run, predict each other run; uncalibrated = held-out prediction";
  m["stacks"] = groups;
  m["overall"] = overall.json();
  m["smallest_to_largest"] = smallest_to_largest.json();
  for (const auto& [k, e] : by_kind) m["by_transfer_kind"][k] = e.json();
  for (const auto& [k, e] : by_single_kind) m["by_single_transfer_kind"][k] = e.json();
  for (const auto& [k, e] : by_source) m["by_source"][k] = e.json();

  auto row = [](const std::string& name, const nlohmann::json& e) {
    return "| " + name + " | " + e["stacks"].dump() + " | " + e["pairs"].dump() + " | " +
           e["stack_weighted"]["uncalibrated_mape"].dump() + " | " + e["stack_weighted"]["calibrated_mape"].dump() +
           " | " + e["uncalibrated"]["mape"].dump() + " | " + e["calibrated"]["mape"].dump() + " | " +
           e["uncalibrated"]["median_ape"].dump() + " | " + e["calibrated"]["median_ape"].dump() + " |\n";
  };
  const std::string head =
      "| transfer | stacks | pairs | uncalibrated MAPE %, stack-weighted | calibrated, stack-weighted | uncalibrated "
      "MAPE %, pair-weighted | calibrated, pair-weighted | uncalibrated median % | calibrated median % |\n"
      "|---|---|---|---|---|---|---|---|---|\n";
  std::string md = "# Calibration on public data\n\nWithin each software stack with at least two runs (" +
                   std::to_string(groups) +
                   " stacks), each run in turn is the one measured step `--calibrate` gets, and every other run of the "
                   "stack is predicted from it. Uncalibrated predictions are held out from the stack (an aggregator "
                   "trained without the stack, its correction damped as ptp-predict damps it for unseen models and "
                   "model-parallel layouts). Errors are "
                   "absolute percentage errors of the step time over (calibration run, predicted run) pairs; "
                   "stack-weighted means average each stack's MAPE (what one user calibrating one stack can expect), "
                   "pair-weighted ones are dominated by the largest stacks (Lambda's hundreds of runs per model).\n\n" + head;
  md += row("all pairs", m["overall"]);
  md += row("smallest -> largest configuration", m["smallest_to_largest"]);
  for (const auto& [k, e] : m["by_transfer_kind"].items()) md += row("differs in " + k, e);
  md += "\nPairs that differ in exactly one respect:\n\n" + head;
  for (const auto& [k, e] : m["by_single_transfer_kind"].items()) md += row(k, e);
  md += "\nBy source:\n\n" + head;
  for (const auto& [k, e] : m["by_source"].items()) md += row(k, e);
  md += "\nBy stack (all pairs):\n\n| stack | runs | pairs | uncalibrated MAPE % | calibrated MAPE % |\n|---|---|---|---|---|\n";
  for (const auto& [stack, e] : overall.by_stack) {
    const auto u = error_stats(e.first), c = error_stats(e.second);
    char cells[96];
    std::snprintf(cells, sizeof cells, " | %zu | %zu | %.2f | %.2f |\n", stacks.at(stack).size(), e.first.size(), u.mape, c.mape);
    md += "| " + stack + cells;
  }
  out.markdown = md;
  return out;
}

}  // namespace ptp::train
