// End-to-end: ptp-predict --calibrate on the fixture jobs in tests/data/calibration (their measured
// steps are synthetic fixtures, not measurements).
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"

using ptp::test::binary;
using ptp::test::run_command;
using ptp::test::source_path;

namespace {
const std::string kDir = source_path("tests/data/calibration");
std::string predict(const std::string& args) { return binary("ptp-predict") + " " + args; }
}  // namespace

TEST_CASE("ptp-predict --calibrate: JSON carries the calibration and the job comes back near its measurement", "[cli][calibration]") {
  const auto plain = run_command(predict(kDir + "/bert-8xa100.yaml --format json"));
  const auto cal = run_command(predict(kDir + "/bert-8xa100.yaml --format json --calibrate " + kDir + "/measured.csv"));
  REQUIRE(plain.exit_code == 0);
  REQUIRE(cal.exit_code == 0);
  const auto p = nlohmann::json::parse(plain.out), c = nlohmann::json::parse(cal.out);
  CHECK_FALSE(p.contains("calibration"));
  REQUIRE(c.contains("calibration"));
  CHECK(c["calibration"]["points"] == 1);
  CHECK(c["calibration"]["method"] == "log_map_stack_factors");
  CHECK(c["calibration"]["factors"].contains("memory_bound_kernels"));
  CHECK(c["calibration"]["factors"].contains("communication"));
  CHECK(c["calibration"]["fit_residual"].get<double>() < c["calibration"]["uncalibrated_residual"].get<double>());
  CHECK(c["calibration"]["uncalibrated_seconds"].get<double>() == Approx(p["iteration"]["seconds"].get<double>()));
  CHECK(c["iteration"]["seconds"].get<double>() == Approx(0.2).epsilon(0.02));  // the fixture's measured step
  CHECK(c["total"]["cost_usd"].get<double>() / p["total"]["cost_usd"].get<double>() ==
        Approx(c["iteration"]["seconds"].get<double>() / p["iteration"]["seconds"].get<double>()));
}

TEST_CASE("ptp-predict --calibrate works with several jobs, --set, --sweep, every format, budgets and --trace", "[cli][calibration]") {
  const std::string csv = " --calibrate " + kDir + "/measured-two.csv";
  const std::string jobs = kDir + "/bert-8xa100.yaml " + kDir + "/bert-1xa100.yaml";
  const auto table = run_command(predict(jobs + csv));
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("calibrated 2 measured steps"));
  const auto jsonl = run_command(predict(jobs + csv + " --format jsonl --set cluster.num_gpus=8"));
  REQUIRE(jsonl.exit_code == 0);
  CHECK(nlohmann::json::parse(jsonl.out.substr(0, jsonl.out.find('\n')))["calibration"]["points"] == 2);
  const auto sweep = run_command(predict(kDir + "/bert-8xa100.yaml" + csv + " --format csv --sweep cluster.num_gpus=8,64,512"));
  REQUIRE(sweep.exit_code == 0);
  CHECK_THAT(sweep.out, Catch::Contains("calibration.factors"));
  CHECK(std::count(sweep.out.begin(), sweep.out.end(), '\n') == 4);
  const auto sweep_table = run_command(predict(kDir + "/bert-8xa100.yaml" + csv + " --sweep precision=amp_fp16,tf32"));
  REQUIRE(sweep_table.exit_code == 0);
  CHECK_THAT(sweep_table.out, Catch::Contains("calibrated 2 measured steps"));
  // The budget applies to the calibrated prediction: 1000 steps of ~0.2 s is ~0.056 h.
  CHECK(run_command(predict(kDir + "/bert-8xa100.yaml" + csv + " --max-hours 0.04")).exit_code == 3);
  const std::string trace = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/ptp-cal-trace.json";
  CHECK(run_command(predict(kDir + "/bert-8xa100.yaml" + csv + " --trace " + trace)).exit_code == 0);
  std::remove(trace.c_str());
}

TEST_CASE("ptp-predict --calibrate: a job that fails validation is named by its CSV line", "[cli][calibration]") {
  const auto r = run_command(predict(kDir + "/bert-8xa100.yaml --calibrate " + kDir + "/bad-job-line3.csv"));
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains("bad-job-line3.csv:3: job: ") && Catch::Contains("bad-precision.yaml") &&
                        Catch::Contains("fp64"));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  const auto missing = run_command(predict(kDir + "/bert-8xa100.yaml --calibrate " + kDir + "/no-such.csv"));
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("no-such.csv"));
}

// Issue 30, item 4: people read the error of the step (predicted / measured - 1), not a log ratio,
// and a method in words; JSON and CSV keep the identifier scripts match on.
TEST_CASE("calibration reports the step's percent error and names its method in words", "[cli][calibration][issue30]") {
  const std::string args = kDir + "/bert-8xa100.yaml --calibrate " + kDir + "/measured.csv";
  const auto json = run_command(predict(args + " --format json"));
  REQUIRE(json.exit_code == 0);
  const auto c = nlohmann::json::parse(json.out)["calibration"];
  CHECK(c["method"] == "log_map_stack_factors");
  const double before = c["uncalibrated_seconds"].get<double>();
  CHECK(c["uncalibrated_step_error"].get<double>() == Approx(std::fabs(before / 0.2 - 1)));
  CHECK(c["fit_step_error"].get<double>() < c["uncalibrated_step_error"].get<double>());
  const auto table = run_command(predict(args));
  REQUIRE(table.exit_code == 0);
  char expected[64];
  std::snprintf(expected, sizeof expected, "(uncalibrated %.1f%%, RMS of predicted / measured - 1)",
                100 * std::fabs(before / 0.2 - 1));
  CHECK_THAT(table.out, Catch::Contains("the stack's factors on the step's parts") && Catch::Contains("step error on them") &&
                            Catch::Contains(expected) && !Catch::Contains("log_map_stack_factors"));
  const auto search = run_command(predict(args + " --search --top 2"));
  REQUIRE(search.exit_code == 0);
  CHECK_THAT(search.out, Catch::Contains("the stack's factors") && !Catch::Contains("log_map_stack_factors"));
}

// --calibrate-log: the steady-state step of a training log (synthetic samples, tests/data/training_logs)
// calibrates the job file it measured, and --set variants are predicted with that calibration.
TEST_CASE("ptp-predict --calibrate-log: a Megatron log calibrates its job, and a --set variant keeps the ratio", "[cli][calibration][training_log]") {
  const std::string dir = source_path("tests/data/training_logs");
  const std::string job = dir + "/megatron-job.yaml", log = " --calibrate-log " + dir + "/megatron.log";
  const auto plain = run_command(predict(job + " --format json"));
  const auto cal = run_command(predict(job + log + " --format json"));
  INFO(cal.err);
  REQUIRE(plain.exit_code == 0);
  REQUIRE(cal.exit_code == 0);
  const auto c = nlohmann::json::parse(cal.out);
  CHECK(c["iteration"]["seconds"].get<double>() == Approx(1.2504).epsilon(0.01));  // the log's median step
  REQUIRE(c["calibration"]["sources"].size() == 1);
  CHECK_THAT(c["calibration"]["sources"][0].get<std::string>(),
             Catch::Contains("megatron.log (megatron log: median of") && Catch::Contains("steady steps"));
  CHECK(c["calibration"]["configurations"] == 1);
  // The log measured the job as written; a variant at 64 GPUs moves by the uncalibrated ratio.
  const auto plain64 = run_command(predict(job + " --format json --set cluster.num_gpus=64"));
  const auto cal64 = run_command(predict(job + log + " --format json --set cluster.num_gpus=64"));
  REQUIRE(cal64.exit_code == 0);
  const double ratio = nlohmann::json::parse(plain.out)["iteration"]["seconds"].get<double>() /
                       nlohmann::json::parse(plain64.out)["iteration"]["seconds"].get<double>();
  CHECK(c["iteration"]["seconds"].get<double>() / nlohmann::json::parse(cal64.out)["iteration"]["seconds"].get<double>() ==
        Approx(ratio).epsilon(1e-6));
  // --log-format names it; a wrong one is refused with the format it expected.
  CHECK(run_command(predict(job + log + " --log-format megatron")).exit_code == 0);
  const auto wrong = run_command(predict(job + log + " --log-format torchtitan"));
  CHECK(wrong.exit_code == 2);
  CHECK_THAT(wrong.err, Catch::Contains("megatron.log") && Catch::Contains("torchtitan"));
}

TEST_CASE("ptp-predict --calibrate-log: a log whose own configuration contradicts the job is refused, naming both", "[cli][calibration][training_log]") {
  const std::string dir = source_path("tests/data/training_logs");
  const auto r = run_command(predict(dir + "/megatron-job.yaml --calibrate-log " + dir +
                                     "/megatron.log --set global_batch_size=256"));
  CHECK(r.exit_code == 0);  // --set edits the predicted job only: the measured one is the file's
  const auto other = run_command(predict(source_path("tests/hostile/fixtures/job.yaml") + " --calibrate-log " + dir + "/megatron.log"));
  CHECK(other.exit_code == 2);
  CHECK_THAT(other.err, Catch::Contains("megatron.log:9") && Catch::Contains("global_batch_size") &&
                            Catch::Contains("128") && Catch::Contains("512"));
  CHECK(std::count(other.err.begin(), other.err.end(), '\n') == 1);
  const auto two_jobs = run_command(predict(dir + "/megatron-job.yaml " + dir + "/megatron-job.yaml --calibrate-log " + dir + "/megatron.log"));
  CHECK(two_jobs.exit_code == 2);
  CHECK_THAT(two_jobs.err, Catch::Contains("--calibrate-log: give the one job file"));
}
