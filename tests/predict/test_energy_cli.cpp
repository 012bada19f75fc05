// End-to-end: the energy outputs, --max-kwh, --objective energy/carbon and the power-cap what-if
// through the real ptp-predict binary.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"

using ptp::test::binary;
using ptp::test::run_command;
using ptp::test::source_path;

namespace {
std::string predict(const std::string& args) { return binary("ptp-predict") + " " + args; }
std::string job() { return source_path("configs/jobs/gpt2-xl-bf16-32xh100.yaml"); }
}  // namespace

TEST_CASE("energy object, table line and --max-kwh budget", "[cli][energy]") {
  auto json = run_command(predict(job() + " --format json --set energy.grid_gco2_per_kwh=300"));
  REQUIRE(json.exit_code == 0);
  const auto j = nlohmann::json::parse(json.out);
  const auto& e = j["energy"];
  CHECK(e["avg_board_w_per_gpu"].get<double>() > 182);  // above the H100's waiting power
  CHECK(e["avg_board_w_per_gpu"].get<double>() < 700);
  CHECK(e["pue_default"] == true);
  const double kwh = e["run"]["facility_kwh"].get<double>();
  CHECK(e["run"]["gco2e"].get<double>() == Approx(kwh * 300));
  auto table = run_command(predict(job()));
  CHECK_THAT(table.out, Catch::Contains("energy ") && Catch::Contains("PUE 1.10, default"));
  CHECK(run_command(predict(job() + " --max-kwh " + std::to_string(kwh * 2))).exit_code == 0);
  auto over = run_command(predict(job() + " --max-kwh " + std::to_string(kwh / 2)));
  CHECK(over.exit_code == 3);
  CHECK_THAT(over.err, Catch::Contains("over budget") && Catch::Contains("--max-kwh"));
}

TEST_CASE("a power cap sweeps as a what-if; out-of-range caps are one-line errors", "[cli][energy]") {
  auto sweep = run_command(predict(job() + " --sweep cluster.power_limit_w=700,500 --format jsonl"));
  REQUIRE(sweep.exit_code == 0);
  const auto nl = sweep.out.find('\n');
  const auto a = nlohmann::json::parse(sweep.out.substr(0, nl)), b = nlohmann::json::parse(sweep.out.substr(nl + 1));
  CHECK(b["iteration"]["seconds"].get<double>() > a["iteration"]["seconds"].get<double>());
  CHECK(b["energy"]["board_j_per_step"].get<double>() < a["energy"]["board_j_per_step"].get<double>());
  auto bad = run_command(predict(job() + " --set cluster.power_limit_w=800"));
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("cluster.power_limit_w: value 800 W outside h100-sxm5-80gb's power-limit range"));
}

TEST_CASE("search by objective energy ranks by facility kWh; carbon needs the grid intensity", "[cli][energy]") {
  auto e = run_command(predict(job() + " --search --objective energy --top 2 --format json"));
  REQUIRE(e.exit_code == 0);
  const auto j = nlohmann::json::parse(e.out);
  REQUIRE(j["rows"].size() == 2);
  CHECK(j["rows"][0]["objective_value"].get<double>() <= j["rows"][1]["objective_value"].get<double>());
  CHECK(j["rows"][0]["objective_value"].get<double>() ==
        Approx(j["rows"][0]["prediction"]["energy"]["run"]["facility_kwh"].get<double>()));
  auto c = run_command(predict(job() + " --search --objective carbon --top 2"));
  CHECK(c.exit_code == 2);
  CHECK_THAT(c.err, Catch::Contains("energy.grid_gco2_per_kwh"));
}

TEST_CASE("a search space may list power caps; the energy objective ranks the capped configuration first",
          "[cli][energy]") {
  const std::string space =
      ptp::test::write_temp_file("energy-space.yaml", "cluster.power_limit_w: [700, 450]\nprecision: [fp8]\n");
  auto r = run_command(predict(job() + " --search --objective energy --space " + space + " --top 2 --format json"));
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["rows"].size() >= 1);
  CHECK(j["rows"][0]["prediction"]["energy"]["power_limit_w"].get<double>() == 450);
}
