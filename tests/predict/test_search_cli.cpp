// ptp-predict --search end to end: the shipped jobs in every format, rows reproducible with their
// --set flags, budgets on the best row, and bad input refused.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"

using ptp::test::binary;
using ptp::test::run_command;
using ptp::test::source_path;

namespace {
std::string predict(const std::string& args) { return binary("ptp-predict") + " " + args; }
std::string job(const std::string& name) { return source_path("configs/jobs/" + name); }
long lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }
}  // namespace

TEST_CASE("--search on the shipped LLM and CNN jobs, every format", "[cli][search]") {
  for (const std::string name : {"gpt2-xl-bf16-32xh100.yaml", "resnet50-amp-8xa100.yaml"}) {
    INFO(name);
    const auto table = run_command(predict(job(name) + " --search --top 3"));
    CHECK(table.exit_code == 0);
    CHECK_THAT(table.out, Catch::Contains("speed-up"));
    CHECK_THAT(table.out, Catch::Contains("reproduce a row"));
    const auto json = run_command(predict(job(name) + " --search --top 3 --format json"));
    REQUIRE(json.exit_code == 0);
    const auto j = nlohmann::json::parse(json.out);
    const auto& s = j["search"];
    CHECK(s["configurations"].get<long>() ==
          s["invalid"].get<long>() + s["no_fit"].get<long>() + s["ranked"].get<long>());
    REQUIRE(j["rows"].size() == 3);
    CHECK(j["rows"][0]["rank"] == 1);
    CHECK(j["rows"][0]["objective_value"].get<double>() <= j["rows"][1]["objective_value"].get<double>());
    CHECK(j["rows"][0]["speedup_vs_job"].get<double>() >= 1.0);  // the job as written is in the space
    const auto jsonl = run_command(predict(job(name) + " --search --top 3 --format jsonl"));
    CHECK(jsonl.exit_code == 0);
    CHECK(lines(jsonl.out) == 3);
    CHECK_THAT(jsonl.err, Catch::Contains("configurations:"));
    const auto csv = run_command(predict(job(name) + " --search --top 3 --format csv"));
    CHECK(csv.exit_code == 0);
    CHECK(lines(csv.out) == 4);

    // Each row's flags reproduce it through the ordinary path.
    for (const auto& row : j["rows"]) {
      std::string flags;
      for (const auto& f : row["set"]) flags += " --set " + f.get<std::string>();
      const auto one = run_command(predict(job(name) + flags + " --format json"));
      REQUIRE(one.exit_code == 0);
      const auto p = nlohmann::json::parse(one.out);
      CHECK(p["iteration"]["seconds"].get<double>() == row["prediction"]["iteration"]["seconds"].get<double>());
    }
  }
}

TEST_CASE("--search on the 256-GPU Llama 3 70B job ranks fitting layouts", "[cli][search]") {
  const auto r = run_command(predict(job("llama3-70b-fp8-256xh100.yaml") + " --search --top 5 --format json"));
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["rows"].size() == 5);
  for (const auto& row : j["rows"]) CHECK(row["prediction"]["memory"]["fits"] == true);
  CHECK(j["search"]["no_fit"].get<long>() > 0);
  CHECK(j["search"]["invalid"].get<long>() > 0);
}

TEST_CASE("--search budgets apply to the best row", "[cli][search]") {
  const std::string gpt = job("gpt2-xl-bf16-32xh100.yaml");
  CHECK(run_command(predict(gpt + " --search --top 2 --max-hours 100000")).exit_code == 0);
  const auto over = run_command(predict(gpt + " --search --top 2 --max-hours 0.001"));
  CHECK(over.exit_code == 3);
  CHECK(lines(over.err) == 1);  // one verdict: the best row's
  CHECK_THAT(over.err, Catch::Contains("over budget"));
  CHECK(run_command(predict(gpt + " --search --objective cost --max-cost 0.01")).exit_code == 3);
}

TEST_CASE("--search with a space file", "[cli][search]") {
  const std::string dir = std::filesystem::temp_directory_path() / "ptp-search-cli";
  std::filesystem::create_directories(dir);
  const std::string space = dir + "/space.yaml";
  std::ofstream(space) << "precision: [amp_bf16, fp8]\nparallelism.tensor: [1, 2]\nparallelism.pipeline: [1]\n"
                          "parallelism.context: [1]\nsharding: [none]\nactivation_checkpointing: [none]\n"
                          "batch_size: [8]\ncluster.num_gpus: [16, 32]\n";
  const auto r = run_command(predict(job("gpt2-xl-bf16-32xh100.yaml") + " --search --space " + space + " --format json"));
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["search"]["configurations"] == 8);
  CHECK(j["search"]["ranked"].get<long>() + j["search"]["invalid"].get<long>() + j["search"]["no_fit"].get<long>() == 8);
  std::filesystem::remove_all(dir);
}

TEST_CASE("--search bad input: exit 2, one line, nothing on stdout", "[cli][search]") {
  const std::string gpt = job("gpt2-xl-bf16-32xh100.yaml");
  for (const std::string& args :
       {gpt + " --search --objective speed", gpt + " --top 3", gpt + " --search --top 0",
        gpt + " --search --sweep precision=bf16,fp8", gpt + " " + gpt + " --search",
        gpt + " --search --space /nonexistent.yaml", job("transformer-xl-fp32-1xv100.yaml") + " --search --objective cost"}) {
    INFO(args);
    const auto r = run_command(predict(args));
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(lines(r.err) == 1);
  }
}
