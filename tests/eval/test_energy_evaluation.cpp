// The energy evaluation ptp-train writes into its report (libeval energy_evaluation.cpp), on the
// shipped datasets/power.csv (published measurements) and on a synthetic copy whose Perseus powers are
// changed, which must move the leave-one-source-out activity and nothing in the in-sample tables.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "ptp/predict/energy.hpp"
#include "ptp/eval/energy_evaluation.hpp"
#include "ptp/vocab/csv.hpp"
#include "support/run_command.hpp"

using ptp::eval::evaluate_energy;
using ptp::eval::EnergyEvaluationOptions;

namespace {
EnergyEvaluationOptions options(const std::string& power_csv) {
  EnergyEvaluationOptions o;
  o.power_csv = power_csv;
  o.config_dir = std::string(PTP_SOURCE_DIR) + "/configs";
  return o;
}
}  // namespace

TEST_CASE("the energy evaluation states each source's error and the one held out", "[energy][eval]") {
  const auto e = evaluate_energy(options(std::string(PTP_SOURCE_DIR) + "/datasets/power.csv"));
  const auto& s = e.summary;
  CHECK(s.at("zeus_power").at("rows").get<int>() > 50);
  CHECK(s.at("zeus_cap_time").at("rows").get<int>() > 500);
  CHECK(s.at("flopmetrics_energy").at("rows").get<int>() > 20);
  // Energy = power x time: the time half is stated on its own, against the summed kernel time.
  CHECK(s.at("flopmetrics_kernel_time").at("rows") == s.at("flopmetrics_energy").at("rows"));
  CHECK_THAT(e.markdown, Catch::Contains("### The same by sequence length"));
  const auto& loso = s.at("leave_one_source_out");
  const double activity = loso.at("zeus_activity_without_zeus").get<double>();
  CHECK(activity > 0.5);
  CHECK(activity < 1.0);
  // The shipped activity is fitted on Perseus alone (energy.hpp), so holding Zeus out recomputes it.
  CHECK(activity == Approx(ptp::predict::power_model::kComputeActivity).margin(0.005));
  CHECK(loso.at("zeus_power").at("rows") == s.at("zeus_power").at("rows"));
  // ... but drops the waiting power Zeus NCF gives the V100, P100 and RTX 6000.
  CHECK(loso.at("zeus_power").at("mape").get<double>() != s.at("zeus_power").at("mape").get<double>());
  CHECK(s.at("zeus_ncf_waiting_power").at("rows").get<int>() >= 40);
  CHECK(loso.at("zeus_ncf_waiting_power").at("rows") == s.at("zeus_ncf_waiting_power").at("rows"));
  CHECK(loso.at("zeus_ncf_waiting_power").at("mape").get<double>() !=
        s.at("zeus_ncf_waiting_power").at("mape").get<double>());
  CHECK_THAT(e.markdown, Catch::Contains("## Leave Zeus out: ResNet-50 and BERT-base average board power per GPU"));
  CHECK_THAT(e.markdown, Catch::Contains("## Zeus NCF, uncapped: a host-bound job"));
  // The shipped power band is the one the held-out rows give (energy.hpp kPowerBand80Log).
  CHECK(s.at("power_band_80_log").get<double>() == Approx(ptp::predict::power_model::kPowerBand80Log).margin(0.01));
  CHECK(s.at("energy_band_coverage").at("zeus_resnet50_energy_per_step").get<double>() > 0.5);
}

TEST_CASE("leave-one-source-out refits on the other source: Perseus powers move it, not the in-sample tables",
          "[energy][eval]") {
  // Synthetic: the published file with every Perseus stage power lowered by a tenth.
  const auto published = ptp::vocab::CsvTable::read_file(std::string(PTP_SOURCE_DIR) + "/datasets/power.csv");
  const std::size_t power = published.column("avg_power_w_per_gpu"), origin = published.column("origin");
  std::string out = ptp::vocab::csv_line(published.header());
  int changed = 0;
  for (const auto& row : published.rows()) {
    auto cells = row.cells;
    if (cells[origin] == "perseus_stage" && !cells[power].empty()) {
      cells[power] = std::to_string(0.9 * std::stod(cells[power]));
      ++changed;
    }
    out += ptp::vocab::csv_line(cells);
  }
  REQUIRE(changed > 100);
  const std::string dir = ptp::test::temp_dir();
  const std::string path = dir + "/power.csv";
  std::ofstream(path) << out;
  const auto shipped = evaluate_energy(options(std::string(PTP_SOURCE_DIR) + "/datasets/power.csv"));
  const auto moved = evaluate_energy(options(path));
  const auto activity = [](const ptp::eval::EnergyEvaluation& e) {
    return e.summary.at("leave_one_source_out").at("zeus_activity_without_zeus").get<double>();
  };
  CHECK(activity(moved) < activity(shipped) - 0.05);
  CHECK(moved.summary.at("zeus_power") == shipped.summary.at("zeus_power"));
  CHECK(moved.summary.at("leave_one_source_out").at("zeus_power").at("mape") !=
        shipped.summary.at("leave_one_source_out").at("zeus_power").at("mape"));
}

TEST_CASE("the cap's clock model is the one its fit gives, and the fit follows the capped rows", "[energy][eval]") {
  const auto shipped = evaluate_energy(options(std::string(PTP_SOURCE_DIR) + "/datasets/power.csv"));
  const auto& fit = shipped.summary.at("cap_clock_model");
  const ptp::predict::CapClockModel model;
  CHECK(fit.at("fitted").at("knee_clock").get<double>() == Approx(model.knee_clock));
  CHECK(fit.at("fitted").at("exponent_above_knee").get<double>() == Approx(model.exponent_above_knee));
  REQUIRE(fit.at("leave_one_gpu_out").size() == 4);
  for (const auto& [gpu, held_out] : fit.at("leave_one_gpu_out").items()) {
    INFO(gpu);
    CHECK(held_out.at("rows").get<int>() >= 40);
    CHECK(held_out.at("time_mape").get<double>() < 10);
    CHECK(held_out.at("energy_mape").get<double>() < 10);
  }
  // Synthetic: the published file with the duration and energy of every Zeus row capped below 200 W
  // shortened by 30 % (every such row is capped: no Zeus GPU's default limit is that low), so steps
  // slow less under a cap: the fit must move.
  const auto published = ptp::vocab::CsvTable::read_file(std::string(PTP_SOURCE_DIR) + "/datasets/power.csv");
  const std::size_t duration = published.column("duration_s"), energy = published.column("energy_j"),
                    origin = published.column("origin"), cap = published.column("power_limit_w");
  std::string out = ptp::vocab::csv_line(published.header());
  int changed = 0;
  for (const auto& row : published.rows()) {
    auto cells = row.cells;
    const double limit = cells[cap].empty() ? 0 : std::stod(cells[cap]);
    if (cells[origin] == "zeus" && limit > 0 && limit < 200 && !cells[duration].empty() && !cells[energy].empty()) {
      cells[duration] = std::to_string(std::stod(cells[duration]) * 0.7);
      cells[energy] = std::to_string(std::stod(cells[energy]) * 0.7);
      ++changed;
    }
    out += ptp::vocab::csv_line(cells);
  }
  REQUIRE(changed > 100);
  const std::string path = ptp::test::temp_dir() + "/power.csv";
  std::ofstream(path) << out;
  const auto moved = evaluate_energy(options(path)).summary.at("cap_clock_model").at("fitted");
  CHECK(moved != fit.at("fitted"));
}
