#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "ptp/predict/energy.hpp"
#include "ptp/predict/prediction.hpp"
#include "ptp/predict/resolved_job.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/hardware.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace pm = power_model;

double gpu_idle_w(const GpuSpec& g) { return g.idle_w > 0 ? g.idle_w : pm::kIdleShareOfTdp * g.tdp_w; }
double gpu_power_limit_min_w(const GpuSpec& g) {
  return g.power_limit_min_w > 0 ? g.power_limit_min_w : pm::kMinLimitShareOfTdp * g.tdp_w;
}
double gpu_power_limit_max_w(const GpuSpec& g) { return g.power_limit_max_w > 0 ? g.power_limit_max_w : g.tdp_w; }

// At the default limit the phase's power is held at the settled TDP when it would exceed it (the step
// model's speeds are measured there), so a cap at TDP moves nothing.
double compute_cap_stretch(double phase_w, double cap_w, double tdp_w, double floor_w, const CapClockModel& model) {
  const double at_default = std::min(phase_w, pm::kCapSettle * tdp_w), settled = pm::kCapSettle * cap_w;
  if (settled >= at_default || at_default <= floor_w) return 1.0;
  const double dynamic = at_default - floor_w;
  // Catalog minimum caps (and the derived 0.33 x TDP) settle above the waiting floor; the clamp keeps
  // a catalog entry that breaks this finite.
  const double capped = std::max(settled - floor_w, 1e-3 * dynamic);
  const double at_knee = dynamic * std::pow(model.knee_clock, model.exponent_above_knee);
  const double clock = capped >= at_knee ? std::pow(capped / dynamic, 1 / model.exponent_above_knee)
                                         : model.knee_clock * capped / at_knee;
  return 1 / clock;
}

namespace {

struct PhasePowers {
  double compute_w, memory_w;
};

// Uncapped board power of the two busy phases: idle plus the phase's share of the dynamic range.
PhasePowers uncapped(double tdp, double idle) {
  return {idle + pm::kComputeActivity * (tdp - idle), idle + pm::kMemoryActivity * (tdp - idle)};
}

// A memory-bound phase drawing `w` at the default limit (held at the settled TDP when it would exceed
// it: the step model's speeds are measured there) under the settled cap. A cap at TDP moves nothing.
double memory_stretch(double w, double cap, double tdp) {
  const double at_default = std::min(w, pm::kCapSettle * tdp), settled = pm::kCapSettle * cap;
  return settled < at_default ? std::pow(at_default / settled, pm::kCapTimeExponentMemory) : 1.0;
}

std::string fmt_w(double w) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f W", w);
  return b;
}

// The cap in force on a GPU with a TDP: the job's (checked against the GPU's range: InputError at the
// field), else the catalog's default when it lies below TDP; w = 0 when nothing caps the board.
struct Cap {
  double w = 0;
  bool from_catalog = false;
};
Cap cap_in_force(const ResolvedJob& job) {
  const GpuSpec& g = *job.gpu;
  const JobSpec& j = job.job;
  if (j.cluster.power_limit_w) {
    const double cap = *j.cluster.power_limit_w, lo = gpu_power_limit_min_w(g), hi = gpu_power_limit_max_w(g);
    if (cap < lo || cap > hi)
      throw InputError(j.file, j.cluster.power_limit_line, j.cluster.power_limit_column, "cluster.power_limit_w",
                       "value " + fmt_w(cap) + " outside " + g.id + "'s power-limit range " + fmt_w(lo) + " to " +
                           fmt_w(hi) + (g.power_limit_min_w > 0 ? "" : " (minimum derived: " + derived_min_power_limit_rule() + ")"));
    return {cap, false};
  }
  if (g.default_power_limit_w > 0 && g.default_power_limit_w < g.tdp_w) return {g.default_power_limit_w, true};
  return {};
}

}  // namespace

void update_energy(Prediction& p) {
  auto& e = p.energy;
  if (!e.valid || !p.valid || !(p.iteration_s > 0)) return;
  const auto& b = p.breakdown;
  const double gemm = std::clamp(p.gemm_math_share, 0.0, 1.0);
  const double kernels = std::max(0.0, b.forward + b.backward + b.recompute - std::max(0.0, b.framework_overhead));
  e.compute_s = gemm * kernels;
  e.memory_s = (1 - gemm) * kernels + b.optimizer + b.loss_scaling;
  e.communication_s = b.communication_exposed;
  e.bubble_s = b.pp_bubble;
  e.other_s = std::max(0.0, p.iteration_s - e.compute_s - e.memory_s - e.communication_s - e.bubble_s);
  const auto w = uncapped(e.tdp_w, e.idle_w);
  const double cap = e.power_limit_w > 0 ? e.power_limit_w : e.tdp_w;
  // A binding cap holds the board at kCapSettle x cap; a cap below idle power cannot be met
  // (the range check refuses it), so wait power is never capped.
  e.compute_w = std::min(w.compute_w, std::max(e.idle_w, pm::kCapSettle * cap));
  e.memory_w = std::min(w.memory_w, std::max(e.idle_w, pm::kCapSettle * cap));
  e.wait_w = e.idle_w;
  const double gpu_j = e.compute_s * e.compute_w + e.memory_s * e.memory_w +
                       (e.communication_s + e.bubble_s + e.other_s) * e.wait_w;
  e.avg_board_w = gpu_j / p.iteration_s;
  // Energy is power x time: the two bands, taken as independent, add in log space.
  const double time_low = p.iteration_low_s > 0 ? std::log(p.iteration_s / p.iteration_low_s) : 0.0;
  const double time_high = p.iteration_high_s > 0 ? std::log(p.iteration_high_s / p.iteration_s) : 0.0;
  e.band_low_factor = std::exp(-std::hypot(std::max(0.0, time_low), pm::kPowerBand80Log));
  e.band_high_factor = std::exp(std::hypot(std::max(0.0, time_high), pm::kPowerBand80Log));
  const double n = std::max(1, p.num_gpus);
  e.board_j_per_step = gpu_j * n;
  e.node_j_per_step = e.host_default ? e.board_j_per_step / pm::kBoardShareOfNode
                                     : e.board_j_per_step + e.host_w_per_gpu * p.iteration_s * n;
  e.facility_j_per_step = e.node_j_per_step * e.pue;
  e.has_run = p.total_steps > 0;
  const double steps = e.has_run ? p.total_steps : 0;
  e.board_kwh = e.board_j_per_step * steps / 3.6e6;
  e.node_kwh = e.node_j_per_step * steps / 3.6e6;
  e.facility_kwh = e.facility_j_per_step * steps / 3.6e6;
  e.gco2e = e.has_carbon ? e.facility_kwh * e.grid_gco2_per_kwh : 0;
}

void apply_power_model(const ResolvedJob& job, Prediction& p, const CapClockModel& model) {
  if (!p.valid || !job.gpu) return;
  const GpuSpec& g = *job.gpu;
  const JobSpec& j = job.job;
  auto& e = p.energy;
  e = EnergyEstimate{};
  if (!(g.tdp_w > 0)) {
    if (j.cluster.power_limit_w)
      throw InputError(j.file, j.cluster.power_limit_line, j.cluster.power_limit_column, "cluster.power_limit_w",
                       "GPU '" + g.id + "' has no tdp_w in the catalog, so a power limit cannot be modelled");
    return;  // no energy without a TDP
  }
  e.valid = true;
  e.tdp_w = g.tdp_w;
  e.idle_w = gpu_idle_w(g);
  e.idle_derived = !(g.idle_w > 0);
  if (j.energy.pue) e.pue = *j.energy.pue, e.pue_default = false;
  if (j.energy.host_w_per_gpu) e.host_w_per_gpu = *j.energy.host_w_per_gpu, e.host_default = false;
  if (j.energy.grid_gco2_per_kwh) e.grid_gco2_per_kwh = *j.energy.grid_gco2_per_kwh, e.has_carbon = true;

  const Cap in_force = cap_in_force(job);
  const double cap = in_force.w;
  e.power_limit_from_catalog = in_force.from_catalog;
  if (cap > 0) {
    e.power_limit_w = cap;
    const auto w = uncapped(g.tdp_w, e.idle_w);
    const double sc = compute_cap_stretch(w.compute_w, cap, g.tdp_w, e.idle_w, model);
    const double sm = memory_stretch(w.memory_w, cap, g.tdp_w);
    if (sc > 1 || sm > 1) {
      // The compute-bound share of each kernel phase stretches with sc, the rest with sm; the
      // pipeline bubble is idle time proportional to a stage's kernels, so it follows them.
      auto& b = p.breakdown;
      const double gemm = std::clamp(p.gemm_math_share, 0.0, 1.0);
      const double kf = gemm * sc + (1 - gemm) * sm;
      const double before = p.iteration_s;
      double delta = 0;
      // Host overhead inside forward/backward (framework_overhead, split in proportion) does not
      // slow with the GPU clock.
      const double fb = b.forward + b.backward;
      const double host_share = fb > 0 ? std::clamp(std::max(0.0, b.framework_overhead) / fb, 0.0, 1.0) : 0.0;
      for (double* part : {&b.forward, &b.backward, &b.recompute, &b.pp_bubble}) {
        const double host = (part == &b.forward || part == &b.backward) ? *part * host_share : 0.0;
        delta += (*part - host) * (kf - 1);
        *part = host + (*part - host) * kf;
      }
      for (double* part : {&b.optimizer, &b.loss_scaling}) {
        delta += *part * (sm - 1);
        *part *= sm;
      }
      for (auto& layer : p.layers) layer.forward_s *= kf, layer.backward_s *= kf;
      p.iteration_s = before + delta;
      const double f = p.iteration_s / before;
      e.step_stretch = f;
      p.iteration_low_s *= f, p.iteration_high_s *= f;
      refresh_totals(p);
      for (double* v : {&p.samples_per_second, &p.tokens_per_second, &p.tokens_per_second_per_gpu, &p.mfu,
                        &p.mfu_precision_peak})
        *v /= f;
      const std::string cap_name = in_force.from_catalog ? g.id + " runs capped at " + fmt_w(cap) + " of its " +
                                                               fmt_w(g.tdp_w) + " TDP (catalog default_power_limit_w)"
                                                         : "cluster.power_limit_w " + fmt_w(cap);
      p.warnings.push_back(cap_name + ": step x" + std::to_string(f).substr(0, 5) +
                           " (power-cap what-if: clock model fitted on the Zeus power-limit trace, 5-9 % "
                           "step-time error on a GPU left out of the fit, caps 0.33-0.9 x TDP)");
    }
  }
  update_energy(p);
}

double power_limit_stretch(const ResolvedJob& job, const Prediction& p) {
  // Most jobs run uncapped: no copy of the prediction for them.
  if (!p.valid || !(p.iteration_s > 0) || !job.gpu || !(job.gpu->tdp_w > 0) || cap_in_force(job).w <= 0) return 1.0;
  Prediction capped = p;
  apply_power_model(job, capped);
  return capped.iteration_s / p.iteration_s;
}

}  // namespace ptp::predict
