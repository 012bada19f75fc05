// ptp-predict --search end to end (test names must not start with "--": ctest passes them as arguments): the shipped jobs in every format, rows reproducible with their
// --set flags, budgets on the best row, and bad input refused.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/run_command.hpp"

using ptp::test::binary;
using ptp::test::run_command;
using ptp::test::source_path;

namespace {
std::string predict(const std::string& args) { return binary("ptp-predict") + " " + args; }
std::string job(const std::string& name) { return source_path("configs/jobs/" + name); }
long lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }
}  // namespace

TEST_CASE("search CLI: the shipped LLM and CNN jobs, every format", "[cli][search]") {
  for (const std::string name : {"gpt2-xl-bf16-32xh100.yaml", "resnet50-amp-8xa100.yaml"}) {
    INFO(name);
    // The default space (seconds per job) once, in json; the other formats on a small space.
    const std::string space = std::filesystem::temp_directory_path() / "ptp-search-formats-space.yaml";
    std::ofstream(space) << "precision: [amp_bf16, amp_fp16]\nsharding: [none, zero1]\n";
    const std::string small = " --space " + space;
    const auto table = run_command(predict(job(name) + " --search --top 3" + small));
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
    const auto jsonl = run_command(predict(job(name) + " --search --top 3 --format jsonl" + small));
    CHECK(jsonl.exit_code == 0);
    CHECK(lines(jsonl.out) == 3);
    CHECK_THAT(jsonl.err, Catch::Contains("configurations:"));
    const auto csv = run_command(predict(job(name) + " --search --top 3 --format csv" + small));
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

TEST_CASE("search CLI: the 256-GPU Llama 3 70B job ranks fitting layouts", "[cli][search]") {
  // The default TP x PP x micro-batch axes with the other axes pinned: the full default space
  // (390k configurations) is a benchmark (README), tens of seconds here and minutes under ASan.
  const std::string space = std::filesystem::temp_directory_path() / "ptp-search-llama-space.yaml";
  std::ofstream(space) << "precision: [fp8]\nparallelism.context: [1]\nparallelism.virtual_pipeline: [1]\n"
                          "sharding: [none, fsdp]\nactivation_checkpointing: [selective, full]\n";
  const auto r = run_command(predict(job("llama3-70b-fp8-256xh100.yaml") + " --search --top 5 --format json --space " + space));
  std::filesystem::remove(space);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["rows"].size() == 5);
  for (const auto& row : j["rows"]) CHECK(row["prediction"]["memory"]["fits"] == true);
  CHECK(j["search"]["no_fit"].get<long>() > 0);
  CHECK(j["search"]["invalid"].get<long>() > 0);
}

TEST_CASE("search CLI: the user's --set flags are part of every row's reproduction", "[cli][search]") {
  // The base job already carries the user's flags: rows whose searched values equal the base's
  // would print "(the job as written)" and reproduce the job file without them.
  const std::string space = std::filesystem::temp_directory_path() / "ptp-search-user-set-space.yaml";
  std::ofstream(space) << "precision: [amp_bf16, fp8]\nparallelism.tensor: [1, 2]\nparallelism.pipeline: [1]\n"
                          "sharding: [none]\n";
  const std::string gpt = job("gpt2-xl-bf16-32xh100.yaml");
  const std::string user = " --set cluster.num_gpus=64 --set sharding=zero1";
  const auto table = run_command(predict(gpt + user + " --search --top 4 --space " + space));
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, !Catch::Contains("(the job as written)"));
  const auto r = run_command(predict(gpt + user + " --search --top 4 --format json --space " + space));
  std::filesystem::remove(space);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["rows"].size() == 4);
  for (const auto& row : j["rows"]) {
    const std::string changes = row["changes"].get<std::string>();
    INFO(changes);
    // The flag no axis replaces is kept; the one an axis replaces gives way to the row's value,
    // which differs from the user's and is therefore listed.
    CHECK_THAT(changes, Catch::StartsWith("--set cluster.num_gpus=64"));
    CHECK_THAT(changes, Catch::Contains("--set sharding=none"));
    CHECK_THAT(table.out, Catch::Contains(changes + "\n"));
    std::string flags;
    for (const auto& f : row["set"]) flags += " --set " + f.get<std::string>();
    for (const std::string& reproduce : {changes, flags}) {
      const auto one = run_command(predict(gpt + " " + reproduce + " --format json"));
      REQUIRE(one.exit_code == 0);
      const auto p = nlohmann::json::parse(one.out);
      CHECK(p["iteration"]["seconds"].get<double>() == row["prediction"]["iteration"]["seconds"].get<double>());
      CHECK(p["num_gpus"] == 64);
    }
  }
}

TEST_CASE("search CLI: budgets apply to the best row", "[cli][search]") {
  const std::string space = std::filesystem::temp_directory_path() / "ptp-search-budget-space.yaml";
  std::ofstream(space) << "precision: [amp_bf16, fp8]\nparallelism.tensor: [1, 2]\nparallelism.pipeline: [1]\n";
  const std::string gpt = job("gpt2-xl-bf16-32xh100.yaml") + " --search --space " + space;
  CHECK(run_command(predict(gpt + " --top 2 --max-hours 100000")).exit_code == 0);
  const auto over = run_command(predict(gpt + " --top 2 --max-hours 0.001"));
  CHECK(over.exit_code == 3);
  CHECK(lines(over.err) == 1);  // one verdict: the best row's
  CHECK_THAT(over.err, Catch::Contains("over budget"));
  CHECK(run_command(predict(gpt + " --objective cost --max-cost 0.01")).exit_code == 3);
  std::filesystem::remove(space);
}

TEST_CASE("search CLI: a space file", "[cli][search]") {
  const std::string dir = std::filesystem::temp_directory_path() / "ptp-search-cli";
  std::filesystem::create_directories(dir);
  const std::string space = dir + "/space.yaml";
  std::ofstream(space) << "precision: [amp_bf16, fp8]\nparallelism.tensor: [1, 2]\nparallelism.pipeline: [1]\n"
                          "parallelism.context: [1]\nsequence_parallel: [false]\nsharding: [none]\n"
                          "activation_checkpointing: [none]\nbatch_size: [8]\ncluster.num_gpus: [16, 32]\n";
  const auto r = run_command(predict(job("gpt2-xl-bf16-32xh100.yaml") + " --search --space " + space + " --format json"));
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["search"]["configurations"] == 8);
  CHECK(j["search"]["ranked"].get<long>() + j["search"]["invalid"].get<long>() + j["search"]["no_fit"].get<long>() == 8);
  std::filesystem::remove_all(dir);
}

TEST_CASE("search CLI: bad input: exit 2, one line, nothing on stdout", "[cli][search]") {
  const std::string gpt = job("gpt2-xl-bf16-32xh100.yaml");
  for (const std::string& args :
       {gpt + " --search --objective speed", gpt + " --top 3", gpt + " --search --top 0",
        gpt + " --search --sweep precision=bf16,fp8", gpt + " " + gpt + " --search",
        gpt + " --search --space /nonexistent.yaml", job("transformer-xl-fp32-1xv100.yaml") + " --search --objective cost --set cluster.gpu=v100-pcie-16gb"}) {
    INFO(args);
    const auto r = run_command(predict(args));
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(lines(r.err) == 1);
  }
}

TEST_CASE("search CLI: --calibrate ranks calibrated predictions", "[cli][search]") {
  const std::string dir = source_path("tests/data/calibration");
  const std::string space = std::filesystem::temp_directory_path() / "ptp-search-cal-space.yaml";
  std::ofstream(space) << "precision: [amp_fp16, amp_bf16]\nparallelism.tensor: [1, 2]\nparallelism.pipeline: [1]\n"
                          "parallelism.context: [1]\nbatch_size: [8, 16, 32]\n";
  const auto r = run_command(predict(dir + "/bert-8xa100.yaml --search --top 3 --format json --space " + space +
                                     " --calibrate " + dir + "/measured.csv"));
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["job"].contains("calibration"));
  REQUIRE(!j["rows"].empty());
  for (const auto& row : j["rows"]) {
    REQUIRE(row["prediction"].contains("calibration"));
    // The ranked value is the calibrated one, and the same flags with --calibrate reproduce it.
    std::string flags;
    for (const auto& f : row["set"]) flags += " --set " + f.get<std::string>();
    const auto one = run_command(predict(dir + "/bert-8xa100.yaml" + flags + " --format json --calibrate " + dir +
                                         "/measured.csv"));
    REQUIRE(one.exit_code == 0);
    CHECK(nlohmann::json::parse(one.out)["iteration"]["seconds"].get<double>() ==
          row["prediction"]["iteration"]["seconds"].get<double>());
  }
  std::filesystem::remove(space);
}

TEST_CASE("search CLI: sequence parallelism is searched and same predictions collapse and ties are marked and rows name the job", "[cli][search]") {
  // Llama 3 70B around its layout: TP 1 and 4 (sequence_parallel both ways only at TP 4), zero1
  // and zero2 (the same prediction under the distributed optimizer), with and without recompute.
  const std::string space = std::filesystem::temp_directory_path() / "ptp-search-sp-space.yaml";
  std::ofstream(space) << "precision: [fp8]\nparallelism.tensor: [1, 4]\nparallelism.pipeline: [4]\n"
                          "parallelism.virtual_pipeline: [5]\nparallelism.context: [2]\nsharding: [zero1, zero2]\n"
                          "activation_checkpointing: [none, full]\nbatch_size: [1]\n";
  const std::string llama = job("llama3-70b-fp8-256xh100.yaml");
  const std::string args = llama + " --set sequence_parallel=false --search --top 10 --space " + space;
  const auto r = run_command(predict(args + " --format json"));
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  // (TP 1: 1 + TP 4: 2 sequence-parallel values) x 2 shardings x 2 recomputes.
  CHECK(j["search"]["configurations"] == 12);
  bool sp = false;
  for (const auto& row : j["rows"]) {
    INFO(row["set"].dump());
    CHECK(row["job"] == llama);  // the job file as given
    const auto& set = row["set"];
    const bool tp1 = std::find(set.begin(), set.end(), "parallelism.tensor=1") != set.end();
    const bool with_sp = std::find(set.begin(), set.end(), "sequence_parallel=true") != set.end();
    if (tp1) CHECK_FALSE(with_sp);
    sp = sp || with_sp;
    // zero1 and zero2 are one row: the other listed, and it predicts the same on its own.
    if (std::find(set.begin(), set.end(), "sharding=zero1") != set.end()) {
      REQUIRE(row["equivalent"] == nlohmann::json::array({"--set sharding=zero2"}));
      std::string flags;
      for (const auto& f : set)
        flags += " --set " + (f == "sharding=zero1" ? std::string("sharding=zero2") : f.get<std::string>());
      const auto one = run_command(predict(llama + flags + " --format json"));
      REQUIRE(one.exit_code == 0);
      const auto p = nlohmann::json::parse(one.out);
      CHECK(p["iteration"]["seconds"].get<double>() == Approx(row["prediction"]["iteration"]["seconds"].get<double>()).epsilon(1e-6));
      CHECK(p["memory"]["per_gpu_bytes"].get<double>() == Approx(row["prediction"]["memory"]["per_gpu_bytes"].get<double>()).epsilon(1e-6));
    }
    for (const auto& f : set) CHECK(f != "sharding=zero2");  // never a row of its own
  }
  CHECK(sp);
  CHECK(j["search"]["tie_margin"].get<double>() > 0);
  // The table: one cell for both, the tie rule in the header, the alternative's flags.
  const auto table = run_command(predict(args));
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("zero1|zero2") && Catch::Contains("ties: = marks a rank within") &&
                            Catch::Contains("(the same prediction with --set sharding=zero2)") && Catch::Contains("  SP  "));
  // JSONL and CSV rows carry the job file too.
  const auto jsonl = run_command(predict(args + " --format jsonl"));
  REQUIRE(jsonl.exit_code == 0);
  std::stringstream rows(jsonl.out);
  for (std::string line; std::getline(rows, line);) {
    const auto row = nlohmann::json::parse(line);
    CHECK(row["search"]["job"] == llama);
    CHECK(row["search"].contains("tie"));
    CHECK(row["search"].contains("equivalent"));
  }
  const auto csv = run_command(predict(args + " --format csv"));
  REQUIRE(csv.exit_code == 0);
  CHECK_THAT(csv.out.substr(0, csv.out.find('\n')), Catch::EndsWith(",tie,equivalent,job"));
  CHECK(lines(csv.out) == static_cast<long>(j["rows"].size()) + 1);
  std::stringstream csv_rows(csv.out.substr(csv.out.find('\n') + 1));
  for (std::string line; std::getline(csv_rows, line);) CHECK_THAT(line, Catch::EndsWith("," + llama));
  std::filesystem::remove(space);
}
