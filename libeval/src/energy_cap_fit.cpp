#include "energy_cap_fit.hpp"

#include <cmath>
#include <cstdio>
#include <functional>
#include <set>

#include "ptp/predict/energy.hpp"

#include "ptp/eval/vocabulary.hpp"

namespace ptp::eval::detail {

namespace {

// The capped GPU-bound rows' errors (MAPE %) under a clock model: each row's uncapped prediction
// capped again with `model`, over the rows `keep` accepts.
struct CapFitError {
  int rows = 0;
  double time = NAN, energy = NAN;
};
using CapRowFilter = std::function<bool(const CapRow&)>;
CapFitError cap_fit_error(const std::vector<CapRow>& rows, const CapClockModel& model, const CapRowFilter& keep) {
  CapFitError out;
  double t = 0, e = 0;
  for (const CapRow& r : rows) {
    if (!keep(r)) continue;
    Prediction capped = r.uncapped;
    apply_power_model(r.capped_job, capped, model);
    t += std::fabs(capped.iteration_s / r.uncapped.iteration_s / r.time_ratio - 1);
    e += std::fabs(capped.energy.board_j_per_step / r.uncapped.energy.board_j_per_step / r.energy_ratio - 1);
    ++out.rows;
  }
  if (out.rows) out.time = 100 * t / out.rows, out.energy = 100 * e / out.rows;
  return out;
}

// The grid's clock model with the least step-time MAPE on the rows `keep` accepts.
CapClockModel fit_cap_clock(const std::vector<CapRow>& rows, const CapRowFilter& keep) {
  CapClockModel best;
  double best_time = INFINITY;
  for (int k = 10; k <= 20; ++k)
    for (int x = 3; x <= 16; ++x) {
      const CapClockModel m{k * 0.05, x * 0.5};
      const double time = cap_fit_error(rows, m, keep).time;
      if (time < best_time - 1e-9) best_time = time, best = m;
    }
  return best;
}

}  // namespace

std::string cap_clock_fit(const std::vector<CapRow>& rows, nlohmann::json& summary) {
  std::string md =
      "\n## The cap's clock model, fitted here\n\nThe knee clock and the exponent above it (energy.hpp "
      "CapClockModel) on a grid (knee 0.50-1.00 by 0.05, exponent 1.5-8 by 0.5), minimising the step-time MAPE of "
      "the capped GPU-bound Zeus rows above (ResNet-50, BERT-base) as the step model predicts them; then each GPU "
      "in turn left out of the fit and predicted with the constants fitted on the others.\n\n"
      "| fitted on | knee clock | exponent above the knee | judged on | rows | time MAPE % | energy MAPE % |\n"
      "|---|---:|---:|---|---:|---:|---:|\n";
  char line[256];
  auto add = [&](const std::string& on, const CapClockModel& m, const std::string& judged, const CapFitError& e) {
    std::snprintf(line, sizeof line, "| %s | %.2f | %.1f | %s | %d | %.1f | %.1f |\n", on.c_str(), m.knee_clock,
                  m.exponent_above_knee, judged.c_str(), e.rows, e.time, e.energy);
    md += line;
  };
  const auto every = [](const CapRow&) { return true; };
  const CapClockModel shipped, all = fit_cap_clock(rows, every);
  add("(shipped, energy.hpp)", shipped, "all GPUs", cap_fit_error(rows, shipped, every));
  add("all GPUs", all, "all GPUs (in sample)", cap_fit_error(rows, all, every));
  std::set<std::string> gpus;
  for (const CapRow& r : rows) gpus.insert(r.gpu);
  nlohmann::json held = nlohmann::json::object();
  for (const std::string& g : gpus) {
    const CapClockModel m = fit_cap_clock(rows, [&](const CapRow& r) { return r.gpu != g; });
    const CapFitError e = cap_fit_error(rows, m, [&](const CapRow& r) { return r.gpu == g; });
    add("all but " + g, m, g + " (held out)", e);
    held[g] = {{"knee_clock", m.knee_clock}, {"exponent_above_knee", m.exponent_above_knee}, {"rows", e.rows},
               {"time_mape", e.time}, {"energy_mape", e.energy}};
  }
  summary = {{"fitted", {{"knee_clock", all.knee_clock}, {"exponent_above_knee", all.exponent_above_knee}}},
             {"leave_one_gpu_out", held}};
  return md;
}

}  // namespace ptp::eval::detail
