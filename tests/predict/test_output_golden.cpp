// Golden output of every registered format, rendered from one fixed, hand-built Prediction (not a
// model's answer: the numbers are arbitrary and only test the printers). A printer change shows up
// as a diff against tests/data/golden/; regenerate deliberately with PTP_UPDATE_GOLDEN=1.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fixed_prediction.hpp"
#include "ptp/predict/output.hpp"
#include "ptp/predict/search.hpp"
#include "ptp/vocab/error.hpp"

using namespace ptp::predict;
using ptp::test::fixed_prediction;

namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("every registered format matches its golden file", "[output][golden]") {
  const std::filesystem::path dir = std::filesystem::path(PTP_TEST_DATA_DIR) / "golden";
  const bool update = std::getenv("PTP_UPDATE_GOLDEN") != nullptr;
  const std::vector<SweepRow> one = {{{}, fixed_prediction()}};
  Prediction faster = fixed_prediction();
  faster.precision = "amp_bf16", faster.iteration_s = 0.4, faster.samples_per_second = 2560;
  const std::vector<SweepRow> sweep = {{{{"precision", "amp_fp16"}}, fixed_prediction()},
                                       {{{"precision", "amp_bf16"}}, faster}};
  REQUIRE(output_formats().size() >= 4);
  for (const auto& f : output_formats()) {
    for (const bool is_sweep : {false, true}) {
      const std::string name = std::string("prediction") + (is_sweep ? "-sweep." : ".") + f.name;
      INFO(name);
      std::string text;
      try {
        text = f.render(is_sweep ? sweep : one, is_sweep);
      } catch (const std::exception& e) {
        text = std::string("error: ") + e.what() + "\n";  // e.g. json refuses a sweep: that is golden too
      }
      if (update) std::ofstream(dir / name, std::ios::binary) << text;
      REQUIRE(std::filesystem::exists(dir / name));
      CHECK(text == read_file(dir / name));
    }
  }
}

TEST_CASE("an unknown format is refused with the registered names", "[output]") {
  CHECK_THROWS_WITH(find_output_format("xml"), Catch::Contains("table | json | jsonl | csv"));
  CHECK(std::string(find_output_format("csv").name) == "csv");
}

TEST_CASE("every printer shows a row that is an error, in its own format", "[output]") {
  Prediction bad;
  bad.valid = false;
  bad.error = "jobs/broken.yaml:3:5: model: 'gpt-9' is not in the model zoo";
  bad.job_file = "jobs/broken.yaml";
  const std::vector<SweepRow> with_error = {{{}, fixed_prediction()}, {{}, bad}};
  for (const auto& f : output_formats()) {
    INFO(f.name);
    std::string text;
    try {
      text = f.render(with_error, false);
    } catch (const ptp::vocab::InputError& e) {
      // The one-job formats refuse two rows, and a lone error row is the error itself.
      CHECK_THAT(std::string(e.what()), Catch::Contains("one"));
      try {
        text = f.render({{{}, bad}}, false);
      } catch (const ptp::vocab::InputError& lone) {
        CHECK_THAT(std::string(lone.what()), Catch::Contains(bad.error));
        continue;
      }
    }
    CHECK_THAT(text, Catch::Contains("'gpt-9' is not in the model zoo"));
  }
}

TEST_CASE("the formats that print a search are those --search accepts, the readable one keeps its counts", "[output]") {
  int readable = 0;
  for (const auto& f : output_formats()) {
    readable += f.printer.readable();
    if (!f.printer.prints_search())
      CHECK_THROWS_AS(f.printer.search(SearchResult{}), ptp::vocab::InputError);
  }
  CHECK(readable == 1);
  CHECK(find_output_format("table").printer.readable());
}
