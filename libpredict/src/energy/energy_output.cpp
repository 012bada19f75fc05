#include "ptp/predict/energy_output.hpp"

#include <cstdio>

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {
std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}
std::string joules(double j) {
  if (j >= 1e9) return fmt("%.2f GJ", j / 1e9);
  if (j >= 1e6) return fmt("%.2f MJ", j / 1e6);
  if (j >= 1e3) return fmt("%.2f kJ", j / 1e3);
  return fmt("%.1f J", j);
}
std::string kwh(double k) { return k >= 1e3 ? fmt("%.1f MWh", k / 1e3) : fmt("%.3g kWh", k); }
std::string grams(double g) {
  if (g >= 1e6) return fmt("%.2f t", g / 1e6);
  if (g >= 1e3) return fmt("%.2f kg", g / 1e3);
  return fmt("%.1f g", g);
}
// The constants named from energy.hpp, so the JSON cannot drift from the model.
std::string power_model_description() {
  return "board power = idle + activity x (TDP - idle) per phase; compute-bound " +
         fmt("%.2g", power_model::kComputeActivity) + " (fitted), memory-bound " +
         fmt("%.2g", power_model::kMemoryActivity) + " (assumed), waiting at idle_w; see docs/energy-evaluation.md";
}
}  // namespace

nlohmann::json energy_json(const EnergyEstimate& e) {
  using nlohmann::json;
  if (!e.valid) return json(nullptr);
  auto or_null = [](bool present, double v) { return present ? json(v) : json(nullptr); };
  return {{"avg_board_w_per_gpu", e.avg_board_w},
          {"board_j_per_step", e.board_j_per_step},
          {"node_j_per_step", e.node_j_per_step},
          {"facility_j_per_step", e.facility_j_per_step},
          {"band_80",
           {{"low_factor", e.band_low_factor},
            {"high_factor", e.band_high_factor},
            {"board_j_per_step", {e.board_j_per_step * e.band_low_factor, e.board_j_per_step * e.band_high_factor}},
            {"facility_kwh",
             e.has_run ? json({e.facility_kwh * e.band_low_factor, e.facility_kwh * e.band_high_factor}) : json(nullptr)},
            {"basis", "the step's 80 % time band and the power model's (" + fmt("%.2f", power_model::kPowerBand80Log) +
                          " in log space, docs/energy-evaluation.md) combined; every energy figure scales by the "
                          "factors"}}},
          {"phases",
           {{"compute_bound", {{"seconds", e.compute_s}, {"board_w", e.compute_w}}},
            {"memory_bound", {{"seconds", e.memory_s}, {"board_w", e.memory_w}}},
            {"communication_exposed", {{"seconds", e.communication_s}, {"board_w", e.wait_w}}},
            {"pipeline_bubble", {{"seconds", e.bubble_s}, {"board_w", e.wait_w}}},
            {"other", {{"seconds", e.other_s}, {"board_w", e.wait_w}}}}},
          {"gpu", {{"tdp_w", e.tdp_w}, {"idle_w", e.idle_w}, {"idle_w_derived", e.idle_derived}}},
          {"power_limit_w", or_null(e.power_limit_w > 0, e.power_limit_w)},
          {"power_limit_source", e.power_limit_w > 0 ? nlohmann::json(e.power_limit_from_catalog ? "gpu catalog default" : "job")
                                                     : nlohmann::json(nullptr)},
          {"step_stretch", e.step_stretch},
          {"host_w_per_gpu", or_null(!e.host_default, e.host_w_per_gpu)},
          {"node_basis", e.host_default ? "default: boards are 70 % of node power (Zeus)" : "boards + host_w_per_gpu"},
          {"pue", e.pue},
          {"pue_default", e.pue_default},
          {"run",
           {{"board_kwh", or_null(e.has_run, e.board_kwh)},
            {"node_kwh", or_null(e.has_run, e.node_kwh)},
            {"facility_kwh", or_null(e.has_run, e.facility_kwh)},
            {"grid_gco2_per_kwh", or_null(e.has_carbon, e.grid_gco2_per_kwh)},
            {"gco2e", or_null(e.has_run && e.has_carbon, e.gco2e)}}},
          {"model", power_model_description()}};
}

std::string energy_text(const Prediction& p) {
  const auto& e = p.energy;
  if (!e.valid) return "";
  std::string o = "energy     " + fmt("%.0f", e.avg_board_w) + " W per GPU board (compute-bound " +
                  fmt("%.0f", e.compute_w) + " W, memory-bound " + fmt("%.0f", e.memory_w) + " W, waiting " +
                  fmt("%.0f", e.wait_w) + " W" + (e.idle_derived ? ", derived" : "") + "); " +
                  joules(e.board_j_per_step) + " per step for " + std::to_string(p.num_gpus) + " GPU" +
                  (p.num_gpus > 1 ? "s" : "") + " (80% band " + joules(e.board_j_per_step * e.band_low_factor) +
                  " .. " + joules(e.board_j_per_step * e.band_high_factor) + ")";
  if (e.power_limit_w > 0)
    o += "; capped at " + fmt("%.0f W", e.power_limit_w) + (e.power_limit_from_catalog ? " (the GPU's default limit)" : "");
  o += "\n";
  if (e.has_run) {
    o += "           run " + kwh(e.board_kwh) + " boards, " + kwh(e.node_kwh) + " node" +
         (e.host_default ? " (default: boards 70 %)" : "") + ", " + kwh(e.facility_kwh) + " facility (PUE " +
         fmt("%.2f", e.pue) + (e.pue_default ? ", default" : "") + "; 80% band " +
         kwh(e.facility_kwh * e.band_low_factor) + " .. " + kwh(e.facility_kwh * e.band_high_factor) + ")";
    if (e.has_carbon) o += "; " + grams(e.gco2e) + " CO2e at " + fmt("%.0f", e.grid_gco2_per_kwh) + " g/kWh";
    o += "\n";
  }
  return o;
}

const std::vector<std::string>& energy_csv_header() {
  static const std::vector<std::string> h{"energy.avg_board_w_per_gpu", "energy.board_j_per_step",
                                          "energy.facility_j_per_step", "energy.board_kwh", "energy.facility_kwh",
                                          "energy.gco2e", "energy.band_low_factor", "energy.band_high_factor"};
  return h;
}

std::vector<std::string> energy_csv_cells(const EnergyEstimate& e) {
  auto g = [](double v) { return fmt("%.6g", v); };
  if (!e.valid) return std::vector<std::string>(energy_csv_header().size());
  return {g(e.avg_board_w),
          g(e.board_j_per_step),
          g(e.facility_j_per_step),
          e.has_run ? g(e.board_kwh) : "",
          e.has_run ? g(e.facility_kwh) : "",
          e.has_run && e.has_carbon ? g(e.gco2e) : "",
          g(e.band_low_factor),
          g(e.band_high_factor)};
}

void append_energy_counters(const Prediction& p, nlohmann::json& events, double kernels_end_s,
                            double optimizer_start_s) {
  const auto& e = p.energy;
  if (!e.valid) return;
  const double g = p.gemm_math_share < 0 ? 0 : (p.gemm_math_share > 1 ? 1 : p.gemm_math_share);
  auto counter = [&](double t, double w) {
    events.push_back({{"name", "board power (W per GPU)"}, {"ph", "C"}, {"pid", 1}, {"ts", t * 1e6}, {"args", {{"W", w}}}});
  };
  counter(0, g * e.compute_w + (1 - g) * e.memory_w);
  counter(kernels_end_s, e.wait_w);
  counter(optimizer_start_s, e.memory_w);
  counter(p.iteration_s, e.wait_w);
}

}  // namespace ptp::predict
