// docs/output.md documents every field ptp-predict writes: the real binary predicts shipped jobs in
// every JSON form (jobs, a sweep with an invalid row, calibrated jobs, a search as one object and as
// rows) and in CSV, and every JSON key path and CSV column must appear on the page in backticks.
// The page's convention: keys joined by '.', "[]" for the elements of an array (`stack[].field`),
// and `a.b.*` for every key of an object whose keys are data (`sweep.*`, `calibration.factors.*`).
// Also: the README stays a manual (length, sections, its accuracy table is the shipped report's).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_command.hpp"

using ptp::test::binary;
using ptp::test::run_command;
using ptp::test::slurp;
using ptp::test::source_path;

namespace {

std::string predict(const std::string& args) { return binary("ptp-predict") + " " + args; }

// Every leaf key path of `v` (scalars, nulls, arrays and empty objects; an array's elements that are
// objects or arrays are walked under "path[]"). A path in `roots` holds a prediction object: it is
// recorded itself and its keys are walked from the top, as the page documents a prediction once.
void walk(const nlohmann::json& v, const std::string& path, const std::set<std::string>& roots,
          std::set<std::string>& out) {
  if (!path.empty() && roots.count(path) && v.is_object()) {
    out.insert(path);
    walk(v, "", {}, out);
    return;
  }
  if (v.is_object()) {
    if (v.empty()) out.insert(path);
    for (auto it = v.begin(); it != v.end(); ++it)
      walk(it.value(), path.empty() ? it.key() : path + "." + it.key(), roots, out);
  } else if (v.is_array()) {
    out.insert(path);
    for (const auto& e : v)
      if (e.is_structured()) walk(e, path + "[]", roots, out);
  } else {
    out.insert(path);
  }
}

// `path` is documented when the page has `path`, or `prefix.*` for a prefix of it ending at a dot.
bool documented(const std::string& doc, const std::string& path) {
  if (doc.find("`" + path + "`") != std::string::npos) return true;
  for (std::size_t dot = path.find('.'); dot != std::string::npos; dot = path.find('.', dot + 1))
    if (doc.find("`" + path.substr(0, dot) + ".*`") != std::string::npos) return true;
  return false;
}

std::vector<std::string> csv_header(const std::string& csv) {
  std::vector<std::string> cols;
  std::stringstream line(csv.substr(0, csv.find('\n')));
  for (std::string c; std::getline(line, c, ',');) cols.push_back(c);
  return cols;
}

std::vector<std::string> shipped_jobs() {
  std::vector<std::string> jobs;
  for (const auto& e : std::filesystem::directory_iterator(source_path("configs/jobs")))
    if (e.path().extension() == ".yaml") jobs.push_back(e.path().string());
  std::sort(jobs.begin(), jobs.end());
  return jobs;
}

std::string run_ok(const std::string& args) {
  INFO(args);
  const auto r = run_command(predict(args));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(!r.out.empty());
  return r.out;
}

void add_jsonl(const std::string& out, std::set<std::string>& paths) {
  std::stringstream lines(out);
  for (std::string l; std::getline(lines, l);)
    if (!l.empty()) walk(nlohmann::json::parse(l), "", {}, paths);
}

// A calibration set of three configurations in two GEMM math classes, so the fit names per-class
// GEMM factors too (the steps are made up: only the keys matter here).
std::string calibration_csv() {
  const std::string dir = ptp::test::temp_dir();
  const std::string base = "model: gpt3-2.7b\nbatch_size: 2\nseq_len: 2048\nglobal_batch_size: 128\n"
                           "parallelism: {tensor: 2}\nrun: {steps: 500}\n";
  auto job = [&](const std::string& name, const std::string& precision, int gpus) {
    const std::string path = dir + "/" + name;
    std::ofstream(path) << base << "precision: " << precision << "\ncluster: {gpu: h100-sxm5-80gb, num_gpus: "
                        << gpus << ", gpus_per_node: 8}\n";
  };
  job("bf16-16.yaml", "amp_bf16", 16);
  job("bf16-32.yaml", "amp_bf16", 32);
  job("fp8-16.yaml", "fp8", 16);
  std::ofstream(dir + "/measured.csv") << "job,step_time_s\nbf16-16.yaml,1.2\nbf16-32.yaml,0.65\nfp8-16.yaml,0.9\n";
  return dir + "/measured.csv";
}

}  // namespace

TEST_CASE("docs/output.md documents every JSON key path and CSV column of the prediction output", "[cli][docs]") {
  const std::string doc = slurp(source_path("docs/output.md"));
  REQUIRE(!doc.empty());
  const auto jobs = shipped_jobs();
  REQUIRE(jobs.size() >= 3);
  std::string all;
  for (const auto& j : jobs) all += " " + j;
  const std::string bert = source_path("configs/jobs/bert-large-amp-16xa100.yaml");
  const std::string resnet = source_path("configs/jobs/resnet50-amp-8xa100.yaml");
  const std::string llm_log_job = source_path("tests/data/training_logs/megatron-job.yaml");
  const std::string measured = calibration_csv();
  const std::string calibrated_job = std::filesystem::path(measured).parent_path().string() + "/bf16-16.yaml";

  std::set<std::string> paths;
  // Every shipped job (LLMs among them), as JSON lines and as one JSON object.
  add_jsonl(run_ok(all + " --format jsonl"), paths);
  walk(nlohmann::json::parse(run_ok(source_path("configs/jobs/llama3-70b-fp8-256xh100.yaml") + " --format json")), "",
       {}, paths);
  // A sweep, whose fp8 row the A100 cannot run (an invalid row: energy null).
  add_jsonl(run_ok(bert + " --sweep precision=amp_fp16,fp8 --format jsonl"), paths);
  // Calibrated: a CSV of three configurations in two math classes, and a training log.
  add_jsonl(run_ok(calibrated_job + " --calibrate " + measured + " --sweep cluster.num_gpus=16,64 --format jsonl"),
            paths);
  walk(nlohmann::json::parse(run_ok(llm_log_job + " --calibrate-log " +
                                    source_path("tests/data/training_logs/megatron.log") + " --format json")),
       "", {}, paths);
  // A search, as one object (its job and rows hold prediction objects) and as rows.
  walk(nlohmann::json::parse(run_ok(resnet + " --search --top 3 --format json")), "", {"job", "rows[].prediction"},
       paths);
  add_jsonl(run_ok(resnet + " --search --top 3 --format jsonl"), paths);

  // Whatever the outputs are, these must have been walked (so the test cannot pass on too little).
  for (const char* expected : {"ptp.output_schema", "iteration.breakdown.forward", "stack[].field", "energy.run.gco2e",
                               "predictor.support.band", "calibration.factors.gemm", "sweep.precision",
                               "search.configurations", "rows[].changes", "search.rank", "job", "energy"})
    CHECK(paths.count(expected) == 1);
  REQUIRE(paths.size() > 150);

  std::vector<std::string> undocumented;
  for (const auto& p : paths)
    if (!documented(doc, p)) undocumented.push_back(p);
  std::string list;
  for (const auto& p : undocumented) list += "\n  " + p;
  INFO("JSON key paths missing from docs/output.md (document each as `path` in its table):" << list);
  CHECK(undocumented.empty());

  // CSV columns: jobs, a calibrated sweep (sweep.<key> and calibration.* columns) and a calibrated search.
  std::vector<std::string> columns;
  for (const auto& c : csv_header(run_ok(all + " --format csv"))) columns.push_back(c);
  for (const auto& c : csv_header(run_ok(calibrated_job + " --calibrate " + measured +
                                         " --sweep cluster.num_gpus=16,64 --format csv")))
    columns.push_back(c);
  const auto search_cols = csv_header(run_ok(resnet + " --search --top 3 --format csv --calibrate " + measured));
  // The search's axis columns, between `rank` and `objective`, are job-spec keys (docs/job-spec.md).
  const auto objective = std::find(search_cols.begin(), search_cols.end(), "objective");
  REQUIRE(objective != search_cols.end());
  REQUIRE(search_cols.front() == "rank");
  columns.push_back("rank");
  columns.insert(columns.end(), objective, search_cols.end());
  CHECK(std::find(columns.begin(), columns.end(), "sweep.cluster.num_gpus") != columns.end());
  CHECK(std::find(columns.begin(), columns.end(), "calibration.factors") != columns.end());
  CHECK(std::find(columns.begin(), columns.end(), "price_label") != columns.end());
  std::string missing;
  for (const auto& c : columns)
    if (!documented(doc, c)) missing += "\n  " + c;
  INFO("CSV columns missing from docs/output.md:" << missing);
  CHECK(missing.empty());
}

TEST_CASE("the output-doc check is not vacuous: an undocumented key fails it", "[docs]") {
  const std::string doc = slurp(source_path("docs/output.md"));
  CHECK(documented(doc, "iteration.seconds"));
  CHECK(documented(doc, "sweep.any_swept_key"));            // `sweep.*`
  CHECK(documented(doc, "calibration.factors.gemm_fp8"));   // `calibration.factors.*`
  CHECK_FALSE(documented(doc, "iteration.breakdown.no_such_part"));
  CHECK_FALSE(documented(doc, "energy.run.no_such_total"));
  CHECK_FALSE(documented(doc, "no_such_object.seconds"));
}

TEST_CASE("the README is a manual: short, the sections a user needs, no history, the report's accuracy table",
          "[docs]") {
  const std::string readme = slurp(source_path("README.md"));
  REQUIRE(!readme.empty());
  CHECK(std::count(readme.begin(), readme.end(), '\n') <= 300);
  for (const char* section :
       {"## Two commands", "## The first prediction", "## Writing a job", "## Outputs", "## Exit codes",
        "## Recipes", "## Accuracy", "## Not modelled", "## Glossary"})
    CHECK_THAT(readme, Catch::Contains(section));
  for (const char* must : {"scripts/run-example.sh", "scripts/test.sh", "`.ci/run` runs exactly `scripts/test.sh`",
                           "docs/output.md", "docs/job-spec.md", "docs/accuracy.md"})
    CHECK_THAT(readme, Catch::Contains(must));
  CHECK(readme.find("../shared") == std::string::npos);
  // No issue numbers: the history lives in docs/ and the commit log.
  std::stringstream lines(readme);
  for (std::string l; std::getline(lines, l);) {
    INFO(l);
    std::string lower = l;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (std::size_t at = lower.find("issue "); at != std::string::npos; at = lower.find("issue ", at + 1))
      CHECK_FALSE((at + 6 < lower.size() && std::isdigit(static_cast<unsigned char>(lower[at + 6]))));
  }
  // The one accuracy table is the shipped report's "Overall" table, copied whole: retraining the
  // bundle changes the report, and this says to copy it again.
  const std::string report = slurp(source_path("models/default/report/report.md"));
  const auto overall = report.find("\n## Overall\n");
  REQUIRE(overall != std::string::npos);
  std::stringstream rest(report.substr(overall + 12));
  std::string table;
  for (std::string l; std::getline(rest, l);) {
    if (l.rfind("|", 0) == 0) table += l + "\n";
    else if (!table.empty()) break;
  }
  REQUIRE(std::count(table.begin(), table.end(), '\n') >= 4);
  INFO("copy the \"Overall\" table of models/default/report/report.md into the README's Accuracy section:\n" << table);
  CHECK(readme.find(table) != std::string::npos);

  // The first prediction shown is the binary's own report of the example job, the checkout's path
  // written as <checkout>: a retrained bundle or a changed report shows here.
  std::string shown = run_ok(source_path("configs/jobs/bert-large-amp-16xa100.yaml"));
  const std::string checkout = PTP_SOURCE_DIR;
  for (auto at = shown.find(checkout); at != std::string::npos; at = shown.find(checkout, at))
    shown.replace(at, checkout.size(), "<checkout>");
  INFO("copy this report into the README's \"The first prediction\" block:\n" << shown);
  CHECK(readme.find(shown) != std::string::npos);
}
