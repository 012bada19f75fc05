// End-to-end: the real ptp-train on the real fixture, then ptp-predict with the bundle it wrote.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"

using ptp::test::binary;
using ptp::test::run_command;
using ptp::test::source_path;

TEST_CASE("ptp-train writes a bundle, report and plot that ptp-predict uses", "[cli][train]") {
  const std::string out = ptp::test::temp_dir() + "/bundle";
  const auto train = run_command(binary("ptp-train") + " --quiet --threads 1 --data " + source_path("tests/data/train-fixture") +
                                 " --out " + out);
  REQUIRE(train.exit_code == 0);
  CHECK_THAT(train.out, Catch::Contains("leave_one_model_out") && Catch::Contains("precision-blind"));
  for (const char* f : {"manifest.json", "CHECKSUM", "aggregator.ubj", "report/report.md", "report/predictions.csv",
                        "report/predicted_vs_measured.svg"})
    CHECK(std::filesystem::exists(out + "/" + f));
  // Exclusions are counted with their reason; the fixture holds DLE BERT-large phase-2 rows whose
  // published step would need more than the GPU's plausible share of its dense peak.
  std::ifstream manifest_file(out + "/manifest.json");
  const auto excluded = nlohmann::json::parse(manifest_file)["metrics"]["runs"]["excluded"];
  bool implausible = false;
  for (const auto& [why, n] : excluded.items())
    if (why.find("MFU above 80 %") != std::string::npos) implausible = n.get<int>() >= 1;
  CHECK(implausible);
  // The communication level is judged on machines it has no rows of, beside the ring bound.
  std::ifstream manifest_again(out + "/manifest.json");
  const auto comm = nlohmann::json::parse(manifest_again)["metrics"]["communication"];
  for (const char* split : {"kfold", "leave_one_gpu_out", "ring_bound"}) CHECK(comm[split]["n"].get<int>() > 0);
  const auto predict = run_command(binary("ptp-predict") + " " + source_path("configs/jobs/resnet50-amp-8xa100.yaml") +
                                   " --format json --bundle " + out);
  REQUIRE(predict.exit_code == 0);
  const auto j = nlohmann::json::parse(predict.out);
  CHECK(j["predictor"]["kind"] == "learned");
  CHECK(j["predictor"]["bundle"] == out);
}

TEST_CASE("ptp-train and ptp-predict refuse bad data and bad bundles", "[cli][train]") {
  const std::string empty_dir = ptp::test::temp_dir();
  auto r = run_command(binary("ptp-train") + " --quiet --data " + empty_dir + " --out " + empty_dir + "/b");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("runs"));
  CHECK_FALSE(std::filesystem::exists(empty_dir + "/b"));
  const std::string bad_bundle = ptp::test::temp_dir();
  r = run_command(binary("ptp-predict") + " " + source_path("configs/jobs/resnet50-amp-8xa100.yaml") + " --bundle " +
                  bad_bundle);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}
