#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>

#include "ptp/predict/output.hpp"
#include "ptp/predict/predict_session.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"
#include "support/run_command.hpp"

using namespace ptp::predict;

namespace {
const Predictor& predictor() {
  static const Predictor p(std::string(PTP_SOURCE_DIR) + "/configs", "", false);
  return p;
}
const std::string& job_file() {
  static const std::string path = ptp::test::write_temp_file(
      "job.yaml",
      "model: resnet50\nprecision: amp_fp16\nbatch_size: 128\ncluster: {gpu: a100-sxm4-80gb, num_gpus: 8}\n"
      "run: {epochs: 1, dataset_size: 1281167}\ncost: {usd_per_gpu_hour: 2.5}\n");
  return path;
}
PredictOutcome run(PredictRequest req) {
  if (req.job_files.empty()) req.job_files = {job_file()};
  return run_predictions(req, predictor());
}
}  // namespace

TEST_CASE("json output carries every documented field", "[output]") {
  PredictRequest req;
  req.format = "json";
  const auto j = nlohmann::json::parse(run(req).stdout_text);
  for (const char* f : {"model", "precision", "gpu", "num_gpus", "warnings"}) CHECK(j.contains(f));
  for (const char* f : {"seconds", "low", "high"}) CHECK(j["iteration"][f].is_number());
  for (const char* f : {"forward", "backward", "optimizer", "communication", "communication_exposed", "loss_scaling"})
    CHECK(j["iteration"]["breakdown"][f].is_number());
  CHECK(j["throughput"]["samples_per_second"].get<double>() > 0);
  for (const char* f : {"steps", "seconds", "gpu_hours", "cost_usd"}) CHECK(j["total"][f].get<double>() > 0);
  CHECK(j["memory"]["fits"].is_boolean());
  CHECK(j["predictor"]["kind"] == "analytical");
}

TEST_CASE("jsonl prints one object per job in order", "[output]") {
  PredictRequest req;
  req.format = "jsonl";
  req.sweeps = {parse_sweep_axis("precision=fp32,tf32,amp_fp16")};
  const auto text = run(req).stdout_text;
  std::vector<std::string> precisions;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    precisions.push_back(nlohmann::json::parse(text.substr(start, nl - start))["precision"]);
  CHECK(precisions == std::vector<std::string>{"fp32", "tf32", "amp_fp16"});
}

TEST_CASE("csv sweep is the cross product with speed-up against the first row", "[output]") {
  PredictRequest req;
  req.format = "csv";
  req.sweeps = {parse_sweep_axis("precision=fp32,amp_fp16"), parse_sweep_axis("cluster.num_gpus=8,16,32")};
  const auto table = CsvTable::parse(run(req).stdout_text, "out.csv");
  REQUIRE(table.rows().size() == 6);
  CHECK(table.text(table.rows()[0], "sweep.precision") == "fp32");
  CHECK(table.text(table.rows()[5], "sweep.cluster.num_gpus") == "32");
  CHECK(*table.number(table.rows()[0], "speedup_vs_first") == Approx(1.0));
  CHECK(*table.number(table.rows()[3], "speedup_vs_first") > 1.5);  // amp_fp16 on 8 GPUs
}

TEST_CASE("sweep table has a header and a row per point", "[output]") {
  PredictRequest req;
  req.sweeps = {parse_sweep_axis("precision=fp32,tf32,amp_fp16,amp_bf16")};
  const auto text = run(req).stdout_text;
  CHECK(std::count(text.begin(), text.end(), '\n') == 5);
  CHECK_THAT(text, Catch::Contains("speed-up") && Catch::Contains("amp_bf16"));
}

TEST_CASE("budgets map to exit code 3", "[output]") {
  PredictRequest req;
  req.max_hours = 1e-6;
  auto out = run(req);
  CHECK(out.exit_code == 3);
  REQUIRE_FALSE(out.stderr_lines.empty());
  CHECK_THAT(out.stderr_lines.front(), Catch::Contains("over budget"));
  req.max_hours = 1e6;
  req.max_cost = 1e9;
  CHECK(run(req).exit_code == 0);
  req.max_cost = 0.01;
  CHECK(run(req).exit_code == 3);
}

TEST_CASE("the trace is valid Chrome trace JSON covering the step", "[output]") {
  PredictRequest req;
  req.trace_path = "unused";
  const auto out = run(req);
  const auto trace = nlohmann::json::parse(out.trace_json);
  REQUIRE(trace["traceEvents"].is_array());
  double end = 0;
  int forward = 0, comm = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    CHECK(e["dur"].get<double>() >= 0);
    end = std::max(end, e["ts"].get<double>() + e["dur"].get<double>());
    forward += e["cat"] == "forward";
    comm += e["cat"] == "communication";
  }
  CHECK(forward > 10);
  CHECK(comm >= 1);
  const double iteration_us = trace["otherData"]["iteration_seconds"].get<double>() * 1e6;
  CHECK(end <= iteration_us * 1.001);
  CHECK(end > iteration_us * 0.8);
}

TEST_CASE("later sweep points read and refuse their spec as a single run does", "[output]") {
  // Later points edit a clone of the job's tree (no line:column marks); a refused point is redone
  // on a fresh parse, so its error is the one the same overrides give on their own.
  auto error_of = [](const PredictRequest& req) {
    try {
      run(req);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  PredictRequest swept;
  swept.sweeps = {parse_sweep_axis("precision=fp32,tf32"), parse_sweep_axis("cluster.num_gpus=8,many")};
  PredictRequest single;
  single.overrides = {parse_override("precision=fp32"), parse_override("cluster.num_gpus=many")};
  CHECK(!error_of(swept).empty());
  // The same message, naming the flag that gave the value: the sweep's point, not a --set.
  std::string expected = error_of(single);
  REQUIRE(expected.rfind("--set 'cluster.num_gpus=many'", 0) == 0);
  expected.replace(0, 5, "--sweep");
  CHECK(error_of(swept) == expected);
  // Accepted points predict what the same overrides predict on their own.
  swept.sweeps = {parse_sweep_axis("precision=fp32,tf32"), parse_sweep_axis("cluster.num_gpus=8,16")};
  swept.format = "jsonl";
  std::vector<double> by_sweep, one_by_one;
  const std::string text = run(swept).stdout_text;
  for (std::size_t start = 0, nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    by_sweep.push_back(nlohmann::json::parse(text.substr(start, nl - start))["iteration"]["seconds"]);
  for (const char* p : {"fp32", "tf32"})
    for (const char* n : {"8", "16"}) {
      PredictRequest one;
      one.overrides = {parse_override(std::string("precision=") + p), parse_override(std::string("cluster.num_gpus=") + n)};
      one.format = "json";
      one_by_one.push_back(nlohmann::json::parse(run(one).stdout_text)["iteration"]["seconds"]);
    }
  CHECK(by_sweep == one_by_one);
}

// Issue 30, item 2b: an FP16 job reads its own (FP16) peak first, then the common BF16 scale.
TEST_CASE("the MFU line shows the job's own precision's peak first", "[output][issue30]") {
  PredictRequest req;
  const auto text = run(req).stdout_text;  // amp_fp16 on A100
  CHECK_THAT(text, Catch::Contains("MFU        ") && Catch::Contains("% of fp16 dense 312.0 TFLOP/s per GPU; "));
  req.overrides = {{"precision", "amp_bf16"}};
  const auto bf16 = run(req).stdout_text;
  CHECK_THAT(bf16, Catch::Contains("% of bf16 dense 312.0 TFLOP/s per GPU\n"));
}

// Issue 30, item 2d: samples of different models are different work; rank within a model only.
TEST_CASE("several jobs are ranked within each model, not across models", "[output][issue30]") {
  const std::string bert = ptp::test::write_temp_file(
      "bert.yaml", "model: bert-large\nprecision: amp_fp16\nbatch_size: 32\nseq_len: 128\n"
                   "cluster: {gpu: a100-sxm4-80gb, num_gpus: 8}\n");
  PredictRequest req;
  req.format = "csv";
  req.job_files = {job_file(), bert};
  req.sweeps = {parse_sweep_axis("precision=fp32,amp_fp16")};
  const auto table = CsvTable::parse(run(req).stdout_text, "out.csv");
  REQUIRE(table.rows().size() == 4);
  std::map<std::string, std::vector<std::string>> ranks;
  for (const auto& row : table.rows()) ranks[table.text(row, "model")].push_back(table.text(row, "rank"));
  // amp_fp16 beats fp32 for each model; each model has its own 1 and 2.
  CHECK(ranks["resnet50"] == std::vector<std::string>{"2", "1"});
  CHECK(ranks["bert-large"] == std::vector<std::string>{"2", "1"});
  req.format = "table";
  const auto text = run(req).stdout_text;
  CHECK(std::count(text.begin(), text.end(), '\n') == 5);
}
