// End-to-end: the real ptp-predict binary on the shipped example jobs and on bad input.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"

using ptp::test::binary;
using ptp::test::run_command;
using ptp::test::source_path;

namespace {
std::string predict(const std::string& args) { return binary("ptp-predict") + " " + args; }
std::vector<std::string> example_jobs() {
  std::vector<std::string> jobs;
  for (const auto& e : std::filesystem::directory_iterator(source_path("configs/jobs")))
    if (e.path().extension() == ".yaml") jobs.push_back(e.path().string());
  std::sort(jobs.begin(), jobs.end());
  return jobs;
}
}  // namespace

TEST_CASE("every shipped example job predicts in every format", "[cli]") {
  const auto jobs = example_jobs();
  REQUIRE(jobs.size() >= 3);
  for (const auto& job : jobs) {
    INFO(job);
    auto table = run_command(predict(job));
    CHECK(table.exit_code == 0);
    CHECK_THAT(table.out, Catch::Contains("iteration"));
    auto json = run_command(predict(job + " --format json"));
    REQUIRE(json.exit_code == 0);
    const auto j = nlohmann::json::parse(json.out);
    CHECK(j["iteration"]["seconds"].get<double>() > 0);
    auto csv = run_command(predict(job + " --format csv"));
    CHECK(csv.exit_code == 0);
    CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') == 2);
  }
  std::string all;
  for (const auto& job : jobs) all += " " + job;
  auto jsonl = run_command(predict(all + " --format jsonl"));
  CHECK(jsonl.exit_code == 0);
  CHECK(std::count(jsonl.out.begin(), jsonl.out.end(), '\n') == static_cast<long>(jobs.size()));
}

TEST_CASE("bad input: exit 2, one line on stderr, nothing on stdout", "[cli]") {
  const std::string job = source_path("configs/jobs/bert-large-amp-16xa100.yaml");
  for (const std::string& args :
       {std::string("/nonexistent.yaml"), job + " --set precision=fp9", job + " --set cluster.gpu=a100-sxm9",
        job + " --set batch_size=-1", job + " --format xml", job + " --sweep precision=", job + " --set nokey=1",
        job + " --set cluster.gpu=v100-sxm2-16gb --set precision=bf16"}) {
    INFO(args);
    auto r = run_command(predict(args));
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("budget flags give CI exit codes", "[cli]") {
  const std::string job = source_path("configs/jobs/bert-large-amp-16xa100.yaml");
  CHECK(run_command(predict(job + " --max-hours 1000")).exit_code == 0);
  auto over = run_command(predict(job + " --max-hours 0.001"));
  CHECK(over.exit_code == 3);
  CHECK_THAT(over.err, Catch::Contains("over budget"));
  CHECK(run_command(predict(job + " --max-cost 0.01")).exit_code == 3);
}

TEST_CASE("trace flag writes a Perfetto-loadable file", "[cli]") {
  const std::string out = ptp::test::temp_dir() + "/trace.json";
  auto r = run_command(predict(source_path("configs/jobs/bert-large-amp-16xa100.yaml") + " --trace " + out));
  REQUIRE(r.exit_code == 0);
  const auto trace = nlohmann::json::parse(ptp::test::slurp(out));
  CHECK(trace["traceEvents"].size() > 10);
}

TEST_CASE("every binary says its version and schemas; JSON carries them with the bundle's checksum", "[cli][version]") {
  for (const char* tool : {"ptp-predict", "ptp-train", "ptp-profile"}) {
    INFO(tool);
    const auto r = run_command(binary(tool) + " --version");
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith(std::string(tool) + " 0.") && Catch::Contains("dataset schema 1"));
  }
  const auto r = run_command(binary("ptp-predict") + " " + source_path("configs/jobs/bert-large-amp-16xa100.yaml") + " --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["ptp"]["output_schema"] == 1);
  CHECK_THAT(r.out, Catch::Contains(j["ptp"]["version"].get<std::string>()));
  const std::string checksum = ptp::test::slurp(source_path("models/default/CHECKSUM"));
  CHECK(checksum.rfind(j["predictor"]["bundle_checksum"].get<std::string>(), 0) == 0);
  const auto table = run_command(binary("ptp-predict") + " " + source_path("configs/jobs/bert-large-amp-16xa100.yaml"));
  CHECK_THAT(table.out, Catch::Contains(checksum.substr(0, 12)));
}

// Issue 30, item 1d: CLI11's own range checks printed DBL_MAX in full and let nan through.
TEST_CASE("numeric flags are range-checked with a one-line error", "[cli][issue30]") {
  const std::string job = source_path("configs/jobs/bert-large-amp-16xa100.yaml");
  for (const char* flags : {"--max-hours -1", "--max-hours nan", "--max-hours inf", "--max-hours 1e300",
                            "--max-cost -5", "--max-cost nan", "--search --top -1", "--search --top 0",
                            "--search --threads 100000"}) {
    const std::string args = flags;
    INFO(args);
    auto r = run_command(predict(job + " " + args));
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.size() < 200);
    CHECK_THAT(r.err, Catch::Contains(args.substr(args.rfind("--"), args.rfind(' ') - args.rfind("--"))));
  }
  CHECK_THAT(run_command(predict(job + " --max-hours -1")).err, Catch::Contains("out of range, expected 0 .. 1e+09"));
  CHECK(run_command(predict(job + " --max-hours 1e6")).exit_code == 0);
}

// Issue 30, item 1e.
TEST_CASE("unset removes a job field before --set applies", "[cli][issue30]") {
  const std::string job = ptp::test::write_temp_file("lora.yaml", R"(model: llama3-8b
precision: bf16
batch_size: 1
seq_len: 4096
cluster: {gpu: h100-sxm5-80gb, num_gpus: 8}
finetune: {method: lora, rank: 16}
)");
  auto refused = run_command(predict(job + " --set finetune.method=full"));
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.err, Catch::Contains("finetune.rank: applies to method: lora or qlora only"));
  auto full = run_command(predict(job + " --set finetune.method=full --unset finetune.rank --format json"));
  REQUIRE(full.exit_code == 0);
  auto unknown = run_command(predict(job + " --unset finetun"));
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.out.empty());
  CHECK_THAT(unknown.err, Catch::Contains("--unset 'finetun': unknown field 'finetun' (did you mean: finetune"));
}

// Issue 30, item 1a, end to end: every sweep point (parsed from a clone of the file's tree) finds the
// model next to the job file, from any working directory.
TEST_CASE("a relative model path works from another directory and in every sweep point", "[cli][issue30]") {
  namespace fs = std::filesystem;
  const fs::path dir = ptp::test::temp_dir();
  fs::create_directories(dir / "models");
  fs::copy_file(source_path("configs/models/bert-large.yaml"), dir / "models" / "bert-large.yaml");
  std::ofstream(dir / "job.yaml") << "model: models/bert-large.yaml\nprecision: amp_fp16\nbatch_size: 32\n"
                                     "seq_len: 128\ncluster: {gpu: a100-sxm4-80gb, num_gpus: 8}\n";
  const auto r = run_command("cd / && " + predict((dir / "job.yaml").string() +
                                                  " --sweep precision=fp32,amp_fp16,amp_bf16 --format csv"));
  CHECK(r.exit_code == 0);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 4);
  CHECK(r.out.find("invalid") == std::string::npos);
  CHECK(r.out.find("not found") == std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("ptp-predict --describe-job-spec prints docs/job-spec.md, and takes no job", "[cli][job_fields]") {
  const auto r = run_command(predict("--describe-job-spec"));
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  // Regenerate deliberately: ptp-predict --describe-job-spec > docs/job-spec.md
  CHECK(r.out == ptp::test::slurp(source_path("docs/job-spec.md")));
  const auto both = run_command(predict("--describe-job-spec " + source_path("configs/jobs/bert-large-amp-16xa100.yaml")));
  CHECK(both.exit_code == 2);
  CHECK(both.out.empty());
}

TEST_CASE("ptp-predict --emit-job writes the job as read, flags applied, and predicting it gives the same answer", "[cli][job_fields]") {
  for (const auto& job : example_jobs()) {
    INFO(job);
    const std::string flags = " --set overlap.grad_reduce=false --set cuda_graphs=true";
    const auto emitted = run_command(predict(job + flags + " --emit-job"));
    REQUIRE(emitted.exit_code == 0);
    CHECK_THAT(emitted.out, Catch::Contains("cuda_graphs: true") && Catch::Contains("grad_reduce: false"));
    const auto file = ptp::test::write_temp_file("emitted.yaml", emitted.out);
    const auto original = run_command(predict(job + flags + " --format json"));
    const auto again = run_command(predict(file + " --format json"));
    REQUIRE(original.exit_code == 0);
    CHECK(again.out == original.out);
  }
  const auto bad = run_command(predict(source_path("configs/jobs/bert-large-amp-16xa100.yaml") +
                                       " --emit-job --set overlap.tp_comm=sometimes"));
  CHECK(bad.exit_code == 2);
  CHECK(bad.out.empty());
  CHECK_THAT(bad.err, Catch::Contains("overlap.tp_comm: expected true or false"));
}

TEST_CASE("ptp-predict on a launch job: warnings on stderr, and its --emit-job predicts byte-identical JSON", "[cli][launch]") {
  for (const char* name : {"llama3-8b-megatron.yaml", "llama3-8b-torchtitan.yaml"}) {
    const std::string job = source_path("tests/data/launch/") + name;
    INFO(job);
    const auto original = run_command(predict(job + " --format json"));
    REQUIRE(original.exit_code == 0);
    REQUIRE(!original.err.empty());
    std::istringstream lines(original.err);
    for (std::string line; std::getline(lines, line);) CHECK_THAT(line, Catch::StartsWith("ptp-predict: warning: "));
    const auto emitted = run_command(predict(job + " --emit-job"));
    REQUIRE(emitted.exit_code == 0);
    CHECK_THAT(emitted.out, Catch::Contains("launch:\n  ") && Catch::Contains("# warning: "));
    // Written elsewhere: the emitted job names its launch file by an absolute path.
    const auto file = ptp::test::write_temp_file("emitted.yaml", emitted.out);
    const auto again = run_command(predict(file + " --format json"));
    REQUIRE(again.exit_code == 0);
    CHECK(again.out == original.out);
  }
  const std::string megatron = source_path("tests/data/launch/llama3-8b-megatron.yaml");
  const auto sweep = run_command(predict(megatron + " --sweep parallelism.tensor=1,2 --format csv"));
  REQUIRE(sweep.exit_code == 0);
  CHECK(std::count(sweep.out.begin(), sweep.out.end(), '\n') == 3);
  CHECK(std::count(sweep.err.begin(), sweep.err.end(), '\n') == 1);  // the job file's warnings, once
  const auto contested = ptp::test::write_temp_file(
      "contested.yaml", "launch:\n  megatron_args: " + source_path("tests/data/launch/llama3-8b-megatron.args") +
                            "\nparallelism:\n  tensor: 4\ncluster:\n  gpu: h100-sxm5-80gb\n  num_gpus: 16\n");
  const auto warned = run_command(predict(contested + " --format json"));
  REQUIRE(warned.exit_code == 0);
  CHECK_THAT(warned.err, Catch::Contains("contested.yaml:4:11: parallelism.tensor: the job's 4 wins over 2 from "
                                         "--tensor-model-parallel-size 2 ("));
  CHECK(nlohmann::json::parse(warned.out)["parallelism"]["tensor"] == 4);
}
