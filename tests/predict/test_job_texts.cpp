// Jobs given as text (PredictRequest::job_texts, the Python package's dicts and strings): the same
// answers as the file, messages naming the text's name, and the steady-state rule on timed steps.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ptp/predict/predict_session.hpp"
#include "ptp/predict/training_log.hpp"
#include "ptp/vocab/error.hpp"
#include "support/run_command.hpp"

using namespace ptp::predict;

namespace {
const Predictor& predictor() {
  static const Predictor p(std::string(PTP_SOURCE_DIR) + "/configs", "", false);
  return p;
}
const char* const kJob =
    "model: resnet50\nprecision: amp_fp16\nbatch_size: 128\ncluster: {gpu: a100-sxm4-80gb, num_gpus: 8}\n"
    "run: {epochs: 1, dataset_size: 1281167}\n";

nlohmann::json json_of(PredictRequest req) {
  req.format = req.search ? "json" : (req.sweeps.empty() ? "json" : "jsonl");
  return nlohmann::json::parse(run_predictions(req, predictor()).stdout_text);
}
PredictRequest from_file() {
  PredictRequest req;
  req.job_files = {ptp::test::write_temp_file("text-job.yaml", kJob)};
  return req;
}
PredictRequest from_text() {
  PredictRequest req;
  req.job_files = {"<string>"};
  req.job_texts = {kJob};
  return req;
}
}  // namespace

TEST_CASE("a job given as text predicts as the same file does, under the text's name", "[job_texts]") {
  auto file = json_of(from_file()), text = json_of(from_text());
  CHECK(text["job"] == "<string>");
  text["job"] = file["job"];
  CHECK(text == file);
}

TEST_CASE("overrides, a search and a training log take a job given as text", "[job_texts]") {
  for (const bool search : {false, true}) {
    auto file_req = from_file(), text_req = from_text();
    for (auto* req : {&file_req, &text_req}) {
      req->overrides = {parse_override("cluster.num_gpus=16")};
      req->search = search;
      req->search_options.top = 3;
    }
    auto file = json_of(file_req), text = json_of(text_req);
    if (search) {
      REQUIRE(text["rows"].size() == file["rows"].size());
      for (std::size_t i = 0; i < file["rows"].size(); ++i) {
        CHECK(text["rows"][i]["job"] == "<string>");
        for (const char* key : {"set", "objective_value", "rank", "equivalent"})
          CHECK(text["rows"][i][key] == file["rows"][i][key]);
      }
      CHECK(text["job"]["iteration"] == file["job"]["iteration"]);
    } else {
      CHECK(text["iteration"] == file["iteration"]);
      CHECK(text["num_gpus"] == 16);
    }
  }
  const std::string log = ptp::test::write_temp_file("text-job-steps.csv", "step,step_time_s\n1,9.0\n2,0.5\n3,0.5\n4,0.5\n5,0.5\n");
  auto file_req = from_file(), text_req = from_text();
  file_req.calibrate_logs = text_req.calibrate_logs = {log};
  const auto file = json_of(file_req), text = json_of(text_req);
  CHECK(text["iteration"] == file["iteration"]);
  CHECK(text["iteration"]["seconds"].get<double>() == Approx(0.5).epsilon(0.01));
}

TEST_CASE("a refused sweep point of a job given as text is refused as the file's point is", "[job_texts]") {
  // A refused point is parsed again for its line:column: from the text, not from a file of its name.
  auto file_req = from_file(), text_req = from_text();
  for (auto* req : {&file_req, &text_req}) {
    req->sweeps = {parse_sweep_axis("batch_size=64,-1")};
    req->format = "jsonl";
  }
  std::string file_error, text_error;
  try {
    run_predictions(file_req, predictor());
  } catch (const ptp::vocab::InputError& e) {
    file_error = e.what();
  }
  try {
    run_predictions(text_req, predictor());
  } catch (const ptp::vocab::InputError& e) {
    text_error = e.what();
  }
  REQUIRE(!file_error.empty());
  CHECK(text_error == file_error);  // "--sweep 'batch_size=-1': batch_size: value -1 out of range, ..."
}

TEST_CASE("a bad job text is an InputError naming the text, its line, column and field", "[job_texts]") {
  auto req = from_text();
  req.job_texts = {"model: resnet50\nprecision: amp_fp16\nbatch_size: -3\ncluster: {gpu: a100-sxm4-80gb}\n"};
  try {
    run_predictions(req, predictor());
    FAIL("a negative batch was accepted");
  } catch (const ptp::vocab::InputError& e) {
    CHECK(e.file() == "<string>");
    CHECK(e.line() == 3);
    CHECK(e.column() == 13);
    CHECK(e.field() == "batch_size");
    CHECK(std::string(e.what()).rfind("<string>:3:13: batch_size: ", 0) == 0);
  }
  req.job_texts = {""};
  CHECK_THROWS_WITH(run_predictions(req, predictor()), Catch::Contains("<string>: empty document"));
  req.job_texts = {"- a list\n"};
  CHECK_THROWS_WITH(run_predictions(req, predictor()), Catch::Contains("expected a job spec mapping"));
}

TEST_CASE("timed steps get a training log's warm-up rule", "[job_texts][training_log]") {
  const auto s = steady_step_of({3.0, 1.0, 1.1, 0.9, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0}, "StepTimer");
  CHECK(s.steps_dropped == 1);
  CHECK(s.steps_used == 9);
  CHECK(s.step_s == Approx(1.0));
  // A slow second step is still warm-up: 1.5x the steady median.
  CHECK(steady_step_of({3.0, 2.0, 1.0, 1.0, 1.0, 1.0}, "StepTimer").steps_dropped == 2);
  CHECK_THROWS_WITH(steady_step_of({1.0, 1.0, 1.0}, "StepTimer"), Catch::Contains("3 steps logged, at least 4"));
  CHECK_THROWS_WITH(steady_step_of({1.0, -1.0, 1.0, 1.0}, "StepTimer"), Catch::Contains("StepTimer: step 2"));
  CHECK_THROWS_WITH(steady_step_of({1.0, std::nan(""), 1.0, 1.0}, "StepTimer"), Catch::Contains("positive number"));
}
