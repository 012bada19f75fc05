// End-to-end: the real ptp-eval binary prints the library's reports, and refuses bad input in one
// line with the bad-input exit code.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "ptp/eval/memory_evaluation.hpp"
#include "ptp/vocab/exit_codes.hpp"
#include "ptp/vocab/hardware.hpp"
#include "support/run_command.hpp"

using ptp::test::binary;
using ptp::test::run_command;
using ptp::test::source_path;

namespace {
int lines_of(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}
}  // namespace

TEST_CASE("ptp-eval memory prints the memory evaluation of the shipped table", "[cli][eval]") {
  const std::string csv = source_path("datasets/memory.csv");
  const auto r = run_command(binary("ptp-eval") + " memory --memory " + csv);
  REQUIRE(r.exit_code == ptp::vocab::kExitOk);
  ptp::eval::MemoryEvaluationOptions o;
  o.memory_csv = csv;
  const ptp::predict::Catalogs catalogs(source_path("configs"));
  CHECK(r.out == "# ptp-eval memory: " + csv + "\n\n" + ptp::eval::evaluate_memory(o, catalogs).markdown);
}

TEST_CASE("ptp-eval llm reports the published LLM rows and writes each predicted row", "[cli][eval]") {
  const std::string rows = ptp::test::temp_dir() + "/rows.csv";
  const auto r = run_command(binary("ptp-eval") + " llm --rows " + rows);
  REQUIRE(r.exit_code == ptp::vocab::kExitOk);
  CHECK_THAT(r.out, Catch::StartsWith("LLM throughput data: ") && Catch::Contains("per precision") &&
                        Catch::Contains("fp8 over bf16 speed-up"));
  std::ifstream in(rows);
  std::string header;
  std::getline(in, header);
  CHECK(header.rfind("line,model,precision,gpu,", 0) == 0);
  // One CSV row per predicted row, as the report counts them.
  const auto predicted = r.out.substr(r.out.find(", ") + 2);
  int rows_written = 0;
  for (std::string line; std::getline(in, line);) ++rows_written;
  CHECK(std::to_string(rows_written) + " predicted" == predicted.substr(0, predicted.find(" (")));
}

TEST_CASE("ptp-eval refuses bad input in one line with exit 2", "[cli][eval]") {
  const auto unknown = run_command(binary("ptp-eval") + " llm --constant no_such_constant=1");
  CHECK(unknown.exit_code == ptp::vocab::kExitBadInput);
  CHECK_THAT(unknown.err, Catch::Contains("no_such_constant") && Catch::Contains("gemm_tc_emax"));
  CHECK(lines_of(unknown.err) == 1);
  const auto not_number = run_command(binary("ptp-eval") + " llm --constant gemm_tc_emax=abc");
  CHECK(not_number.exit_code == ptp::vocab::kExitBadInput);
  CHECK(lines_of(not_number.err) == 1);
  const auto missing = run_command(binary("ptp-eval") + " memory --memory /nonexistent/memory.csv");
  CHECK(missing.exit_code == ptp::vocab::kExitBadInput);
  CHECK_THAT(missing.err, Catch::Contains("/nonexistent/memory.csv"));
  CHECK(lines_of(missing.err) == 1);
  const auto no_report = run_command(binary("ptp-eval"));
  CHECK(no_report.exit_code == ptp::vocab::kExitBadInput);
  CHECK(lines_of(no_report.err) == 1);
}
