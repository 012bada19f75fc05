// End-to-end: what a CI job or a scheduler relies on. --require-fit (exit 4), several job files with a
// bad one among them (its row's error, the others print, exit 2), `job` and `set` on every row, the
// shared exit-code table against each tool's behaviour and --help, and --format slurm.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ptp/vocab/exit_codes.hpp"
#include "support/run_command.hpp"

using ptp::test::binary;
using ptp::test::run_command;
using ptp::test::source_path;

namespace {
std::string predict(const std::string& args) { return binary("ptp-predict") + " " + args; }
const std::string kBert = source_path("configs/jobs/bert-large-amp-16xa100.yaml");
const std::string kLlama = source_path("configs/jobs/llama3-70b-fp8-256xh100.yaml");
// A micro-batch of 1024 BERT-large sequences per A100 needs well over its 80 GB.
const std::string kTooBig = " --set batch_size=1024";

std::vector<nlohmann::json> jsonl(const std::string& text) {
  std::vector<nlohmann::json> rows;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

std::string write_job(const std::string& name, const std::string& text) {
  const std::string path = ptp::test::temp_dir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}
}  // namespace

TEST_CASE("require-fit exits 4 for a job that does not fit and names it and its memory", "[cli][gate]") {
  const auto plain = run_command(predict(kBert + kTooBig + " --format json"));
  REQUIRE(plain.exit_code == ptp::vocab::kExitOk);  // without the gate a job that does not fit is a report
  CHECK_FALSE(nlohmann::json::parse(plain.out)["memory"]["fits"].get<bool>());
  const auto gated = run_command(predict(kBert + kTooBig + " --require-fit"));
  CHECK(gated.exit_code == ptp::vocab::kExitDoesNotFit);
  CHECK_THAT(gated.out, Catch::Contains("DOES NOT FIT"));  // the report still prints
  CHECK_THAT(gated.err, Catch::Contains("does not fit: " + kBert));
  CHECK_THAT(gated.err, Catch::Contains("GiB per GPU >"));
  CHECK_THAT(gated.err, Catch::Contains("batch_size=1024"));
  // A job that fits passes the gate.
  CHECK(run_command(predict(kBert + " --require-fit")).exit_code == ptp::vocab::kExitOk);
  // Does-not-fit outranks over-budget: the job cannot start at all.
  const auto both = run_command(predict(kBert + kTooBig + " --max-hours 0.0001 --require-fit"));
  CHECK(both.exit_code == ptp::vocab::kExitDoesNotFit);
  CHECK_THAT(both.err, Catch::Contains("over budget"));
}

TEST_CASE("require-fit fails a sweep when any row does not fit and names that row", "[cli][gate]") {
  const auto r = run_command(predict(kBert + " --sweep batch_size=8,1024 --format jsonl --require-fit"));
  CHECK(r.exit_code == ptp::vocab::kExitDoesNotFit);
  const auto rows = jsonl(r.out);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["memory"]["fits"].get<bool>());
  CHECK_FALSE(rows[1]["memory"]["fits"].get<bool>());
  CHECK_THAT(r.err, Catch::Contains("(batch_size=1024)"));
  CHECK_THAT(r.err, !Catch::Contains("(batch_size=8)"));
  CHECK(run_command(predict(kBert + " --sweep batch_size=8,16 --require-fit")).exit_code == ptp::vocab::kExitOk);
}

TEST_CASE("require-fit fails a search when no configuration fits and passes one whose best row fits", "[cli][gate]") {
  // Llama-3-70B on one H100: no precision, layout or recompute choice holds its weights.
  const auto none = run_command(predict(kLlama + " --set cluster.num_gpus=1 --unset parallelism --search --require-fit"));
  CHECK(none.exit_code == ptp::vocab::kExitDoesNotFit);
  CHECK_THAT(none.err, Catch::Contains("does not fit: no configuration"));
  const auto some = run_command(predict(kBert + " --search --top 3 --require-fit"));
  CHECK(some.exit_code == ptp::vocab::kExitOk);
}

TEST_CASE("several job files with a bad one: its row carries the error and the others still print", "[cli][gate]") {
  const std::string bad = write_job("bad.yaml", "model: bert-large\nprecision: amp_fp16\nbatch_size: [8]\n");
  const std::string files = kBert + " " + bad + " " + kBert;
  const auto r = run_command(predict(files + " --format jsonl"));
  CHECK(r.exit_code == ptp::vocab::kExitBadInput);
  const auto rows = jsonl(r.out);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0]["job"] == kBert);
  CHECK(rows[1]["job"] == bad);
  CHECK(rows[2]["job"] == kBert);
  CHECK(rows[0]["valid"].get<bool>());
  CHECK_FALSE(rows[1]["valid"].get<bool>());
  CHECK_THAT(rows[1]["error"].get<std::string>(), Catch::Contains(bad + ":3:"));
  CHECK(rows[2]["valid"].get<bool>());
  CHECK(rows[0]["iteration"]["seconds"] == rows[2]["iteration"]["seconds"]);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_THAT(r.err, Catch::Contains("error: " + bad + ":3:"));

  const auto csv = run_command(predict(files + " --format csv"));
  CHECK(csv.exit_code == ptp::vocab::kExitBadInput);
  CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') == 4);  // header + three rows
  CHECK_THAT(csv.out, Catch::Contains(bad));
  const auto table = run_command(predict(files));
  CHECK(table.exit_code == ptp::vocab::kExitBadInput);
  CHECK_THAT(table.out, Catch::Contains("error      " + bad));
  // One job file that is bad stays what it was: one line, nothing on stdout.
  const auto one = run_command(predict(bad));
  CHECK(one.exit_code == ptp::vocab::kExitBadInput);
  CHECK(one.out.empty());
}

TEST_CASE("every row names its job file and the flags that make it", "[cli][gate]") {
  const auto r = run_command(predict(kBert + " --set activation_checkpointing=full --sweep cluster.num_gpus=8,16 --format jsonl"));
  REQUIRE(r.exit_code == ptp::vocab::kExitOk);
  const auto rows = jsonl(r.out);
  REQUIRE(rows.size() == 2);
  for (const auto& row : rows) CHECK(row["job"] == kBert);
  CHECK(rows[0]["set"] == nlohmann::json({"activation_checkpointing=full", "cluster.num_gpus=8"}));
  CHECK(rows[1]["set"] == nlohmann::json({"activation_checkpointing=full", "cluster.num_gpus=16"}));
  // The flags reproduce the row.
  const auto again = run_command(predict(kBert + " --set activation_checkpointing=full --set cluster.num_gpus=16 --format json"));
  REQUIRE(again.exit_code == ptp::vocab::kExitOk);
  CHECK(nlohmann::json::parse(again.out)["iteration"]["seconds"] == rows[1]["iteration"]["seconds"]);
  const auto one = run_command(predict(kBert + " --format json"));
  CHECK(nlohmann::json::parse(one.out)["set"] == nlohmann::json::array());
}

TEST_CASE("a --set error names the flag and not the job file", "[cli][gate]") {
  const auto type = run_command(predict(kBert + " --set cluster.num_gpus=abc"));
  CHECK(type.exit_code == ptp::vocab::kExitBadInput);
  CHECK_THAT(type.err, Catch::StartsWith("ptp-predict: error: --set 'cluster.num_gpus=abc': cluster.num_gpus: expected an integer"));
  const auto refused = run_command(predict(kBert + " --set precision=fp4"));
  CHECK(refused.exit_code == ptp::vocab::kExitBadInput);
  CHECK_THAT(refused.err, Catch::StartsWith("ptp-predict: error: --set 'precision=fp4': precision: fp4 needs sm_100"));
  // The nearest precision an A100 runs to FP4 is BF16 (no FP8 there); on an H100 it is FP8.
  CHECK_THAT(refused.err, Catch::Contains("the nearest precision it runs: bf16"));
  const auto h100 = run_command(predict(kBert + " --set cluster.gpu=h100-sxm5-80gb --set precision=fp4"));
  CHECK_THAT(h100.err, Catch::Contains("the nearest precision it runs: fp8"));
  // A mistake in the file itself still points into the file.
  const std::string bad = write_job("bad-gpus.yaml", "model: bert-large\nprecision: amp_fp16\nbatch_size: 8\n"
                                                    "cluster: {gpu: a100-sxm4-80gb, num_gpus: abc}\n");
  CHECK_THAT(run_command(predict(bad)).err, Catch::Contains(bad + ":4:"));
}

TEST_CASE("the exit-code table is what each tool returns and prints in its help", "[cli][gate]") {
  for (const std::string tool : {"ptp-predict", "ptp-train", "ptp-profile"}) {
    INFO(tool);
    const auto help = run_command(binary(tool) + " --help");
    CHECK(help.exit_code == ptp::vocab::kExitOk);
    CHECK_THAT(help.out, Catch::Contains(ptp::vocab::exit_codes_help(tool)));
    CHECK(run_command(binary(tool) + " --no-such-flag").exit_code == ptp::vocab::kExitBadInput);
  }
  CHECK(run_command(predict(kBert)).exit_code == ptp::vocab::kExitOk);
  CHECK(run_command(predict(kBert + " --max-hours 0.0001")).exit_code == ptp::vocab::kExitOverBudget);
  CHECK(run_command(predict(kBert + kTooBig + " --require-fit")).exit_code == ptp::vocab::kExitDoesNotFit);
  CHECK(run_command(binary("ptp-train") + " --data /nonexistent --out " + ptp::test::temp_dir() + "/b -q").exit_code ==
        ptp::vocab::kExitBadInput);
  CHECK(run_command(binary("ptp-profile") + " --backend host /nonexistent.yaml").exit_code == ptp::vocab::kExitBadInput);
  // ptp-profile's "no point succeeded" is pinned by tests/profile/test_resume_kill.cpp on a real run.
  // The README's table is this table.
  CHECK_THAT(ptp::test::slurp(source_path("README.md")), Catch::Contains(ptp::vocab::exit_codes_markdown()));
}

TEST_CASE("format slurm bounds the run by the band's upper end plus evaluations and checkpoints", "[cli][gate][slurm]") {
  const std::string run = " --unset run.tokens --set run.steps=2000 --set run.eval.every_steps=500 --set run.eval.seconds=120"
                          " --set run.checkpoint.every_steps=1000 --set run.checkpoint.seconds=300";
  const auto json = run_command(predict(kLlama + run + " --format json"));
  REQUIRE(json.exit_code == ptp::vocab::kExitOk);
  const auto j = nlohmann::json::parse(json.out);
  CHECK(j["total"]["evaluations"] == 4);
  CHECK(j["total"]["checkpoints"] == 2);
  CHECK(j["total"]["eval_seconds"].get<double>() == Approx(480));
  CHECK(j["total"]["checkpoint_seconds"].get<double>() == Approx(600));
  const double step = j["iteration"]["seconds"], high = j["iteration"]["high"];
  CHECK(j["total"]["seconds"].get<double>() == Approx(2000 * step + 1080));
  CHECK(j["total"]["high_seconds"].get<double>() == Approx(2000 * high + 1080));

  const auto slurm = run_command(predict(kLlama + run + " --format slurm"));
  REQUIRE(slurm.exit_code == ptp::vocab::kExitOk);
  const double bound_minutes = std::ceil((2000 * high + 1080) * 1.10 / 60);
  const long long h = static_cast<long long>(bound_minutes) / 60, m = static_cast<long long>(bound_minutes) % 60;
  char expected[64];
  std::snprintf(expected, sizeof expected, "#SBATCH --time=%02lld:%02lld:00\n", h, m);
  CHECK_THAT(slurm.out, Catch::StartsWith(expected));
  CHECK_THAT(slurm.out, Catch::Contains("#SBATCH --nodes=32\n"));
  CHECK_THAT(slurm.out, Catch::Contains("#SBATCH --gpus-per-node=8\n"));
  CHECK_THAT(slurm.out, Catch::Contains("4 evaluations (run.eval)"));
  CHECK_THAT(slurm.out, Catch::Contains("2 checkpoint saves (run.checkpoint)"));
  CHECK_THAT(slurm.out, Catch::Contains("10 % margin"));
  CHECK_THAT(slurm.out, Catch::Contains("band's upper end"));
  // Every line is a directive or a comment, so the block heads a batch script as it is.
  std::stringstream lines(slurm.out);
  for (std::string line; std::getline(lines, line);) CHECK(line.rfind('#', 0) == 0);

  // A job with no run cannot be bounded; a sweep is several jobs.
  CHECK(run_command(predict(kLlama + " --unset run --format slurm")).exit_code == ptp::vocab::kExitBadInput);
  CHECK(run_command(predict(kLlama + run + " --sweep cluster.num_gpus=128,256 --format slurm")).exit_code ==
        ptp::vocab::kExitBadInput);
  // An evaluation section with a field missing is refused, naming it.
  const auto half = run_command(predict(kLlama + " --set run.eval.every_steps=100"));
  CHECK(half.exit_code == ptp::vocab::kExitBadInput);
  CHECK_THAT(half.err, Catch::Contains("seconds"));
}
