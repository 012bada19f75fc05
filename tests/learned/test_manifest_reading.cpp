// How LearnedBundle::load reads manifest.json: the support points apart with from_chars and the
// training metrics skipped by their brackets, nlohmann the rest. What it keeps must be what a whole
// parse gives, and any surprise around the two cuts must fall back to that whole parse.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ptp/predict/learned/bundle.hpp"
#include "ptp/predict/learned/sha256.hpp"
#include "ptp/vocab/error.hpp"
#include "support/run_command.hpp"

using namespace ptp::predict;
namespace fs = std::filesystem;

namespace {
const std::string kShipped = std::string(PTP_SOURCE_DIR) + "/models/default";

// A copy of the shipped bundle whose manifest is `text`, with CHECKSUM made to match.
std::string bundle_with_manifest(const std::string& text) {
  const std::string dir = ptp::test::temp_dir() + "/bundle";
  fs::copy(kShipped, dir, fs::copy_options::recursive);
  std::ofstream(dir + "/manifest.json", std::ios::binary | std::ios::trunc) << text;
  std::ofstream(dir + "/CHECKSUM", std::ios::trunc) << sha256_hex(text) << "\n";
  return dir;
}

// What load keeps, by nlohmann alone: the whole file without metrics and without support.points.
nlohmann::json kept_of(nlohmann::json whole) {
  whole.erase("metrics");
  whole["support"]["points"] = nlohmann::json::array();
  return whole;
}
}  // namespace

TEST_CASE("the shipped manifest as loaded is nlohmann's whole parse, less the metrics and points", "[bundle]") {
  const auto whole = nlohmann::json::parse(ptp::test::slurp(kShipped + "/manifest.json"));
  REQUIRE(whole.contains("metrics"));
  const auto bundle = LearnedBundle::load(kShipped);
  CHECK(bundle.manifest() == kept_of(whole));
  CHECK_FALSE(bundle.manifest().contains("metrics"));
}

TEST_CASE("a manifest laid out otherwise is read whole, to the same answer", "[bundle]") {
  auto whole = nlohmann::json::parse(ptp::test::slurp(kShipped + "/manifest.json"));
  SECTION("compact, one line") {
    const auto bundle = LearnedBundle::load(bundle_with_manifest(whole.dump()));
    CHECK(bundle.manifest() == kept_of(whole));
  }
  SECTION("a \"metrics\" key below the top level is kept, not skipped") {
    whole.erase("metrics");
    whole["training_data"]["metrics"] = {{"kept", true}};
    const auto bundle = LearnedBundle::load(bundle_with_manifest(whole.dump(2)));
    CHECK(bundle.manifest().at("training_data").at("metrics") == nlohmann::json({{"kept", true}}));
  }
  SECTION("the word metrics as a value") {
    whole["training_data"]["note"] = "metrics";
    const auto bundle = LearnedBundle::load(bundle_with_manifest(whole.dump(2)));
    CHECK(bundle.manifest().at("training_data").at("note") == "metrics");
    CHECK_FALSE(bundle.manifest().contains("metrics"));
  }
}

TEST_CASE("metrics that are not JSON are refused although prediction never reads them", "[bundle]") {
  const std::string text = ptp::test::slurp(kShipped + "/manifest.json");
  const auto at = text.find("\"metrics\"");
  REQUIRE(at != std::string::npos);
  const auto open = text.find('{', at);
  for (const std::string& damage : {std::string("{]"), std::string("{\"unterminated")}) {
    INFO(damage);
    std::string broken = text;
    broken.replace(open, 1, damage);
    std::string error;
    try {
      LearnedBundle::load(bundle_with_manifest(broken));
    } catch (const ptp::vocab::InputError& e) {
      error = e.what();
    }
    CHECK_THAT(error, Catch::Contains("manifest.json") && Catch::Contains("malformed manifest"));
  }
}
