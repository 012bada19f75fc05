// The shipped bundle (models/default) must be what ptp-train produces from the shipped datasets:
// retrain from scratch and compare data hashes and every cross-validated figure.
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"

using ptp::test::binary;
using ptp::test::run_command;
using ptp::test::source_path;

TEST_CASE("retraining reproduces the shipped default bundle's metrics", "[train][slow]") {
  const auto shipped = nlohmann::json::parse(ptp::test::slurp(source_path("models/default/manifest.json")));
  const std::string out = ptp::test::temp_dir() + "/default";
  // Passive OpenMP waiting: ctest runs another test beside this one on a 2-core machine.
  const auto r = run_command("OMP_WAIT_POLICY=PASSIVE " + binary("ptp-train") + " --quiet --data " +
                             source_path("datasets") + " --out " + out);
  REQUIRE(r.exit_code == 0);
  const auto fresh = nlohmann::json::parse(ptp::test::slurp(out + "/manifest.json"));
  CHECK(fresh["training_data"] == shipped["training_data"]);  // datasets changed? retrain and ship the bundle
  CHECK(fresh["features"] == shipped["features"]);
  for (const auto& [split, v] : shipped["metrics"]["cv"].items()) {
    for (const char* kind : {"learned", "blind"}) {
      if (!v.contains(kind)) continue;  // the blind ablation runs on two splits
      INFO(split << " " << kind);
      const double a = v[kind]["overall"]["mape"].get<double>();
      const double b = fresh["metrics"]["cv"][split][kind]["overall"]["mape"].get<double>();
      CHECK(b == Approx(a).margin(0.5));
    }
    CHECK(fresh["metrics"]["cv"][split]["band_coverage"].get<double>() == Approx(v["band_coverage"].get<double>()).margin(0.02));
  }
  CHECK(fresh["shrinkage"] == shipped["shrinkage"]);
  // The memory evaluation (no fitting) gives the same figures from the same data.
  CHECK(fresh["metrics"]["memory"] == shipped["metrics"]["memory"]);
}

TEST_CASE("the shipped report states the memory error per memory kind on the published peaks", "[train]") {
  const auto m = nlohmann::json::parse(ptp::test::slurp(source_path("models/default/manifest.json")))["metrics"];
  REQUIRE(m.contains("memory"));
  CHECK(m["memory"]["rows"].get<int>() >= 80);
  for (const char* kind : {"allocated", "reserved", "nvidia_smi"}) {
    INFO(kind);
    REQUIRE(m["memory"]["by_kind"].contains(kind));
    CHECK(m["memory"]["by_kind"][kind]["rows"].get<int>() > 0);
    CHECK(std::isfinite(m["memory"]["by_kind"][kind]["mape"].get<double>()));
  }
  // Issue 28's target is 5 % per kind; the report states how far each is (README "Memory").
  const std::string report = ptp::test::slurp(source_path("models/default/report/report.md"));
  CHECK(report.find("## Memory estimate against published peaks") != std::string::npos);
  CHECK(report.find("| allocated |") != std::string::npos);
}

TEST_CASE("the shipped bundle meets the accuracy it claims in its report", "[train]") {
  const auto m = nlohmann::json::parse(ptp::test::slurp(source_path("models/default/manifest.json")))["metrics"];
  // The precision-aware models must beat the precision-blind ablation where it is run.
  for (const auto& [split, v] : m["cv"].items()) {
    if (!v.contains("blind")) continue;
    INFO(split);
    CHECK(v["learned"]["overall"]["mape"].get<double>() < v["blind"]["overall"]["mape"].get<double>());
  }
  // Issue 27: at most a point worse than the bundle before the mixed model (7.28 %).
  CHECK(m["cv"]["kfold"]["learned"]["overall"]["mape"].get<double>() <= 8.28);
  // The honest splits: the learned answer beats the analytical one on leave-one-codebase-out,
  // leave-one-precision-out and scale extrapolation (overall; not on every codebase, see the report).
  for (const char* split : {"leave_one_codebase_out", "leave_one_precision_out", "scale_extrapolation"}) {
    INFO(split);
    CHECK(m["ladder"][split]["full"]["mape"].get<double>() < m["ladder"][split]["analytical"]["mape"].get<double>());
  }
  CHECK(m["by_codebase_macro"]["full"].get<double>() < m["by_codebase_macro"]["analytical"].get<double>());
  // An unknown codebase keeps the fitted part of the typical level (macro 18.66 % when it kept all).
  CHECK(m["by_codebase_macro"]["full"].get<double>() <= 18.0);
  // Also with the unknown-codebase shrinkage fitted without the codebase it judges.
  CHECK(m["by_codebase_macro"]["full_nested"].get<double>() < m["by_codebase_macro"]["analytical"].get<double>());
  // The 80 % band holds 75-85 % on every split (the report and README state each split's figure),
  // and with each workload kind's band scaled, at least 75 % of the LLM runs on every split.
  for (const auto& [split, v] : m["cv"].items()) {
    INFO(split);
    CHECK(v["band_coverage"].get<double>() >= 0.75);
    CHECK(v["band_coverage"].get<double>() <= 0.85);
    CHECK(v["band_coverage_by_kind"]["transformer/decoder-only"]["coverage"].get<double>() >= 0.75);
  }
}
