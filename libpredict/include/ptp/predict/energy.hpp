#pragma once
// Board power and energy per step from the step model's phases (issue 31). What is measured and
// what is modelled: docs/energy-evaluation.md. Every constant below was read or fitted on
// datasets/power.csv (shared/data/power: Zeus NSDI'23 power-limit trace, Perseus SOSP'24 artifact).
#include <optional>
#include <string>

#include "ptp/vocab/hardware.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

struct Prediction;
struct ResolvedJob;

// The job spec's optional `energy:` section. Unset fields take the defaults below (reported as
// defaults).
struct EnergySpec {
  std::optional<double> pue, grid_gco2_per_kwh, host_w_per_gpu;
  bool any() const { return pue || grid_gco2_per_kwh || host_w_per_gpu; }
};

namespace power_model {
// Power of a GPU that holds a context and waits (communication, pipeline bubble, host gaps), as a
// share of TDP where the catalog has no idle_w: the mean of the two measured blocking powers in
// power.csv (docs/constants.md).
inline constexpr double kIdleShareOfTdp = 0.26;
// Smallest power cap as a share of TDP where the catalog has no power_limit_min_w (hardware.hpp).
inline constexpr double kMinLimitShareOfTdp = kDerivedMinPowerLimitShareOfTdp;
// Share of the dynamic range (TDP - idle) drawn while compute-bound (GEMM / convolution kernels) at
// default clocks: fitted on the Perseus BF16 stage profiles by scripts/fit_power_constants.py, Zeus
// held out (its epoch averages span phases the step model draws apart; docs/constants.md).
inline constexpr double kComputeActivity = 0.95;
// ... while memory-bound (element-wise, normalisation, optimizer). No row of power.csv isolates
// memory-bound kernels: an assumption (half of the dynamic range), not a fit.
inline constexpr double kMemoryActivity = 0.5;
// Under a binding cap the board settles at this share of the cap (median measured power / cap of
// the 550 Zeus rows whose cap binds; fitted).
inline constexpr double kCapSettle = 0.944;
// How a compute-bound phase slows under a binding cap (CapClockModel): its dynamic power, board power
// above the waiting floor (idle_w), goes as clock^kCapExponentAboveKnee while the clock stays above
// kCapKneeClock x its default (voltage falls with the clock), and in proportion to the clock below it
// (voltage at its floor), so a cap near the floor stretches the step steeply. Fitted by ptp-eval
// energy (libeval energy_cap_fit.cpp) on the capped Zeus rows of GPU-bound jobs as the product
// predicts them (docs/energy-evaluation.md, docs/constants.md).
inline constexpr double kCapKneeClock = 0.90;
inline constexpr double kCapExponentAboveKnee = 6.0;
// Memory-bound phases: a cap lowers SM clocks, not the memory clock. Their phase stretches by
// (P / P')^0.2, half the single power law's exponent the compute phases had before the clock model
// (assumed: no row of power.csv isolates memory-bound kernels).
inline constexpr double kCapTimeExponentMemory = 0.20;
// Defaults when the job's energy section does not say: the GPUs' share of server power during
// training, and the datacentre PUE (published figures: docs/constants.md).
inline constexpr double kBoardShareOfNode = 0.70;
// Half-width of the power model's 80 % band, in log space: the 80th percentile of
// |log(predicted / measured)| average board power over the rows no fit saw (flopmetrics busy power,
// Zeus' GPU-bound rows predicted with the constants fitted without Zeus); ptp-eval energy recomputes it.
inline constexpr double kPowerBand80Log = 0.16;
inline constexpr double kDefaultPue = 1.10;
}  // namespace power_model

struct EnergyEstimate {
  bool valid = false;
  double tdp_w = 0, idle_w = 0;
  bool idle_derived = false;  // idle_w from kIdleShareOfTdp, not the catalog
  double power_limit_w = 0;   // the cap in force: the job's, else the GPU's catalog default (0: none, TDP)
  bool power_limit_from_catalog = false;  // the GPU's default_power_limit_w, not the job's
  double step_stretch = 1;    // the cap's effect on the step (1: none)
  // Per GPU per optimizer step: seconds in each phase and the board power drawn in it.
  double compute_s = 0, memory_s = 0, communication_s = 0, bubble_s = 0, other_s = 0;
  double compute_w = 0, memory_w = 0, wait_w = 0;  // communication, bubble and other draw wait_w
  double avg_board_w = 0;     // per GPU, over the step
  double board_j_per_step = 0;  // all GPU boards
  // 80 % band of every energy figure, as factors on it: the step's time band and the power model's
  // (kPowerBand80Log) combined in log space.
  double band_low_factor = 1, band_high_factor = 1;
  double host_w_per_gpu = 0;
  bool host_default = true;   // node = boards / kBoardShareOfNode
  double node_j_per_step = 0;
  double pue = power_model::kDefaultPue;
  bool pue_default = true;
  double facility_j_per_step = 0;
  bool has_run = false;       // kWh per run needs run: in the job
  double board_kwh = 0, node_kwh = 0, facility_kwh = 0;
  bool has_carbon = false;    // energy.grid_gco2_per_kwh given
  double grid_gco2_per_kwh = 0, gco2e = 0;  // facility energy of the run x grid intensity
};

// The catalog's values, or the stated rules above where it has none.
double gpu_idle_w(const GpuSpec& g);
double gpu_power_limit_min_w(const GpuSpec& g);
double gpu_power_limit_max_w(const GpuSpec& g);

// The cap's clock model (power_model::kCapKneeClock): ptp-eval energy refits it with other values.
struct CapClockModel {
  double knee_clock = power_model::kCapKneeClock;
  double exponent_above_knee = power_model::kCapExponentAboveKnee;
};
// Time factor of a compute-bound phase drawing `phase_w` at the default limit under a cap of `cap_w`
// (1 when the cap does not bind).
double compute_cap_stretch(double phase_w, double cap_w, double tdp_w, double floor_w, const CapClockModel& model);

// The power cap in force, cluster.power_limit_w or else the GPU's catalog default_power_limit_w, as
// a what-if: checks the job's cap against the GPU's range (InputError at the field's line:column) and
// stretches the step's compute and memory phases. Then fills p.energy. Called once per prediction
// after the step is predicted.
void apply_power_model(const ResolvedJob& job, Prediction& p, const CapClockModel& model = {});
// Recomputes p.energy from p's (possibly recalibrated) breakdown with the inputs it already holds.
void update_energy(Prediction& p);
// How much the job's power cap (its own, or its GPU's catalog default) stretches this uncapped
// prediction: 1 when nothing caps it. The trainer divides runs measured under a cap by it.
double power_limit_stretch(const ResolvedJob& job, const Prediction& p);

}  // namespace ptp::predict
