// The shipped bundle (models/default) must be what ptp-train produces from the shipped datasets:
// retrain from scratch and compare data hashes and every cross-validated figure.
#include <catch2/catch.hpp>
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
      INFO(split << " " << kind);
      const double a = v[kind]["overall"]["mape"].get<double>();
      const double b = fresh["metrics"]["cv"][split][kind]["overall"]["mape"].get<double>();
      CHECK(b == Approx(a).margin(0.5));
    }
  }
  CHECK(fresh["metrics"]["interval"]["coverage_held_out"].get<double>() ==
        Approx(shipped["metrics"]["interval"]["coverage_held_out"].get<double>()).margin(0.02));
}

TEST_CASE("the shipped bundle meets the accuracy it claims in its report", "[train]") {
  const auto m = nlohmann::json::parse(ptp::test::slurp(source_path("models/default/manifest.json")))["metrics"];
  // The precision-aware models must beat the precision-blind ablation on every split.
  for (const auto& [split, v] : m["cv"].items()) {
    INFO(split);
    CHECK(v["learned"]["overall"]["mape"].get<double>() < v["blind"]["overall"]["mape"].get<double>());
  }
  CHECK(m["cv"]["kfold"]["learned"]["overall"]["mape"].get<double>() <= 8.0);
  const double coverage = m["interval"]["coverage_held_out"].get<double>();
  CHECK(coverage >= 0.70);
  CHECK(coverage <= 0.90);
}
