// End-to-end: prices per GPU type through the real ptp-predict binary (issue 30, item 3), and each
// row's own calibration factors in sweeps and searches (item 6).
#include <catch2/catch.hpp>
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/run_command.hpp"

using ptp::test::binary;
using ptp::test::run_command;
using ptp::test::source_path;
using ptp::test::write_temp_file;

namespace {
std::string predict(const std::string& args) { return binary("ptp-predict") + " " + args; }
long lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

// ResNet-50 on 8 GPUs with no price of its own: the catalog prices it.
std::string unpriced_job() {
  return write_temp_file("cost-cli-job.yaml",
                         "model: resnet50\nprecision: amp_fp16\nbatch_size: 128\ncluster: {gpu: a100-sxm4-80gb, "
                         "num_gpus: 8}\nrun: {epochs: 1, dataset_size: 1281167}\n");
}
std::string gpu_space(const std::string& gpus) {
  return write_temp_file("cost-cli-space-" + std::to_string(gpus.size()) + ".yaml",
                         "cluster.gpu: [" + gpus + "]\nprecision: [amp_fp16]\nsharding: [none]\n"
                         "activation_checkpointing: [none]\nbatch_size: [128]\n");
}
nlohmann::json search_json(const std::string& args) {
  const auto r = run_command(predict(args + " --format json"));
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}
}  // namespace

TEST_CASE("cost CLI: --objective cost over two GPU types ranks by price x time, not by time", "[cli][cost]") {
  const std::string args = unpriced_job() + " --search --space " + gpu_space("a100-sxm4-80gb, h100-sxm5-80gb");
  const auto by_time = search_json(args + " --objective time");
  const auto by_cost = search_json(args + " --objective cost");
  REQUIRE(by_time["rows"].size() == 2);
  REQUIRE(by_cost["rows"].size() == 2);
  for (const auto& row : by_cost["rows"]) {
    const auto& p = row["prediction"];
    CHECK(p["cost"]["source"] == "catalog");
    // The ranked value is this GPU's GPU-hours at this GPU's price.
    CHECK(row["objective_value"].get<double>() ==
          Approx(p["total"]["gpu_hours"].get<double>() * p["cost"]["usd_per_gpu_hour"].get<double>()));
    CHECK(p["cost"]["usd_per_hour"].get<double>() == Approx(8 * p["cost"]["usd_per_gpu_hour"].get<double>()));
  }
  CHECK(by_cost["rows"][0]["objective_value"].get<double>() <= by_cost["rows"][1]["objective_value"].get<double>());
  // The H100 is the faster GPU here but costs 2.4x the A100's list price per hour for less than a
  // 2.4x speed-up: time ranks it first, cost last. With one price for both they would agree.
  CHECK(by_time["rows"][0]["prediction"]["gpu"] == "h100-sxm5-80gb");
  CHECK(by_cost["rows"][0]["prediction"]["gpu"] == "a100-sxm4-80gb");
  const auto a100 = by_cost["rows"][0]["prediction"], h100 = by_cost["rows"][1]["prediction"];
  CHECK(h100["total"]["seconds"].get<double>() < a100["total"]["seconds"].get<double>());
  CHECK(h100["total"]["cost_usd"].get<double>() > a100["total"]["cost_usd"].get<double>());
  // Table: a $/hour column and where each GPU's price is from; no warning (no default prices).
  const auto table = run_command(predict(args + " --objective cost"));
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("$/hour") && Catch::Contains("price      h100-sxm5-80gb: $12.29 per GPU-hour, "
                                                                     "catalog (AWS, 2025-05)"));
  CHECK(table.err.empty());
  // CSV rows carry the cluster's $/hour and the price's source.
  const auto csv = run_command(predict(args + " --objective cost --format csv"));
  REQUIRE(csv.exit_code == 0);
  CHECK_THAT(csv.out, Catch::Contains("usd_per_hour,usd_per_gpu_hour,price_source,price_label") &&
                          Catch::Contains(",98.32,12.29,catalog,\"catalog (AWS, 2025-05)\""));
}

TEST_CASE("cost CLI: a GPU the catalog does not price", "[cli][cost]") {
  const std::string space = gpu_space("a100-sxm4-80gb, rtx-a6000");
  // No price anywhere for the RTX A6000: --objective cost ranks the A100 and leaves the A6000 out,
  // with one note counting what it skipped (the summary counts it too).
  const auto none = run_command(predict(unpriced_job() + " --search --objective cost --format json --space " + space));
  REQUIRE(none.exit_code == 0);
  CHECK(lines(none.err) == 2);  // the summary and one note
  CHECK_THAT(none.err, Catch::Contains("note: 1 configuration that fits is left out of the cost ranking: rtx-a6000 has "
                                       "no price") &&
                           Catch::Contains("--set cost.usd_per_gpu_hour=X prices every GPU at X") &&
                           Catch::Contains("1 unpriced (no price for rtx-a6000: left out of the cost ranking)"));
  const auto skipped = nlohmann::json::parse(none.out);
  CHECK(skipped["search"]["unpriced"] == 1);
  CHECK(skipped["search"]["unpriced_gpus"] == nlohmann::json::array({"rtx-a6000"}));
  CHECK(skipped["search"]["configurations"].get<long>() ==
        skipped["search"]["invalid"].get<long>() + skipped["search"]["no_fit"].get<long>() +
            skipped["search"]["unpriced"].get<long>() + skipped["search"]["ranked"].get<long>());
  REQUIRE(skipped["rows"].size() == 1);
  CHECK(skipped["rows"][0]["prediction"]["gpu"] == "a100-sxm4-80gb");
  // Ranked by time, the A6000 is a row, with no cost.
  const auto by_time = search_json(unpriced_job() + " --search --objective time --space " + space);
  REQUIRE(by_time["rows"].size() == 2);
  for (const auto& row : by_time["rows"])
    CHECK(row["prediction"]["cost"]["source"] == (row["prediction"]["gpu"] == "rtx-a6000" ? "none" : "catalog"));
  // The job file's price is for its A100: the A6000 does not borrow it (no default price); it is
  // left out of the cost ranking the same way, and the note says whose the job's price is.
  const std::string priced = write_temp_file(
      "cost-cli-priced.yaml",
      "model: resnet50\nprecision: amp_fp16\nbatch_size: 128\ncluster: {gpu: a100-sxm4-80gb, num_gpus: 8}\n"
      "run: {epochs: 1, dataset_size: 1281167}\ncost: {usd_per_gpu_hour: 1.5}\n");
  const auto r = run_command(predict(priced + " --search --objective cost --format json --space " + space));
  REQUIRE(r.exit_code == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 2);  // the summary and one note
  CHECK_THAT(r.err, Catch::Contains("rtx-a6000 has no price") &&
                        Catch::Contains("the job's cost.usd_per_gpu_hour is for a100-sxm4-80gb"));
  CHECK_THAT(r.err, !Catch::Contains("default"));
  const auto ranked = nlohmann::json::parse(r.out);  // a named object: the loop below refers into it
  REQUIRE(ranked["rows"].size() == 1);
  for (const auto& row : ranked["rows"]) {
    const auto& p = row["prediction"];
    CHECK(p["gpu"] == "a100-sxm4-80gb");
    CHECK(p["cost"]["source"] == "job");
    CHECK(p["cost"]["usd_per_gpu_hour"].get<double>() == 1.5);
  }
  // The A6000 on its own (as a sweep or --set runs it) has no price, and says whose the job's is.
  const auto one = run_command(predict(priced + " --set cluster.gpu=rtx-a6000"));
  REQUIRE(one.exit_code == 0);
  CHECK_THAT(one.out, Catch::Contains("no price: the catalog has none for rtx-a6000; the job's price is for "
                                      "a100-sxm4-80gb; --set cost.usd_per_gpu_hour prices any GPU"));
  const auto one_json = run_command(predict(priced + " --set cluster.gpu=rtx-a6000 --format json"));
  REQUIRE(one_json.exit_code == 0);
  const auto a6000 = nlohmann::json::parse(one_json.out);
  CHECK(a6000["cost"]["source"] == "none");
  CHECK(a6000["cost"]["usd_per_gpu_hour"].is_null());
  CHECK(a6000["total"]["cost_usd"].is_null());
  // --set cluster.gpu to a priced GPU: the catalog's price, not the file's (which was the A100's).
  const auto h100 = run_command(predict(priced + " --set cluster.gpu=h100-sxm5-80gb --format json"));
  REQUIRE(h100.exit_code == 0);
  CHECK(nlohmann::json::parse(h100.out)["cost"]["label"] == "catalog (AWS, 2025-05)");
  // A price given as a flag is the price of whatever GPU the job runs on.
  const auto flag = run_command(predict(unpriced_job() + " --set cost.usd_per_gpu_hour=0.8 --set cluster.gpu=rtx-a6000 "
                                                         "--format json"));
  REQUIRE(flag.exit_code == 0);
  CHECK(nlohmann::json::parse(flag.out)["cost"]["source"] == "job");
  // The job as written unpriced still refuses a cost ranking: there is nothing to compare with.
  const auto refused = run_command(predict(unpriced_job() + " --set cluster.gpu=rtx-a6000 --search --objective cost "
                                                            "--space " + space));
  CHECK(refused.exit_code == 2);
  CHECK(lines(refused.err) == 1);
  CHECK_THAT(refused.err, Catch::Contains("no price for rtx-a6000"));
}

TEST_CASE("cost CLI: a sweep over GPUs prices each at its own price and the job's price only its own GPU", "[cli][cost]") {
  // The report (issue 54): with cost.usd_per_gpu_hour given for the job's H100, an H200 and a B200
  // were priced at the H100's price. The H100 takes the job's, the A100 its catalog price, the H200
  // (no price: in its catalog file) none.
  const std::string h100_job = write_temp_file(
      "cost-cli-h100.yaml",
      "model: resnet50\nprecision: amp_bf16\nbatch_size: 128\ncluster: {gpu: h100-sxm5-80gb, num_gpus: 8}\n"
      "run: {epochs: 1, dataset_size: 1281167}\ncost: {usd_per_gpu_hour: 2.0}\n");
  const std::string sweep = h100_job + " --sweep cluster.gpu=h100-sxm5-80gb,a100-sxm4-80gb,h200-sxm-141gb";
  const auto r = run_command(predict(sweep + " --format jsonl"));
  REQUIRE(r.exit_code == 0);
  std::map<std::string, nlohmann::json> cost;
  std::stringstream rows(r.out);
  for (std::string line; std::getline(rows, line);) {
    const auto p = nlohmann::json::parse(line);
    cost[p["gpu"].get<std::string>()] = p["cost"];
    CHECK(p["total"]["cost_usd"].is_null() == (p["gpu"] == "h200-sxm-141gb"));
  }
  REQUIRE(cost.size() == 3);
  CHECK(cost["h100-sxm5-80gb"]["source"] == "job");
  CHECK(cost["h100-sxm5-80gb"]["usd_per_gpu_hour"].get<double>() == 2.0);
  CHECK(cost["a100-sxm4-80gb"]["source"] == "catalog");
  CHECK(cost["a100-sxm4-80gb"]["usd_per_gpu_hour"].get<double>() == Approx(40.9657 / 8).epsilon(1e-4));
  CHECK(cost["h200-sxm-141gb"]["source"] == "none");
  CHECK(cost["h200-sxm-141gb"]["usd_per_gpu_hour"].is_null());
  CHECK(cost["h200-sxm-141gb"]["label"] == "none (the job's price is for h100-sxm5-80gb)");
  // The table's price lines say the same, per GPU.
  const auto table = run_command(predict(sweep));
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("price      a100-sxm4-80gb: $5.12 per GPU-hour, catalog (AWS, 2025-05)") &&
                            Catch::Contains("price      h200-sxm-141gb: no price") &&
                            Catch::Contains("price      h100-sxm5-80gb: $2.00 per GPU-hour, job"));
  // A price given as a flag is meant for every row: all three at $3.
  const auto flagged = run_command(predict(sweep + " --set cost.usd_per_gpu_hour=3 --format jsonl"));
  REQUIRE(flagged.exit_code == 0);
  std::stringstream flagged_rows(flagged.out);
  int n = 0;
  for (std::string line; std::getline(flagged_rows, line); ++n) {
    const auto p = nlohmann::json::parse(line);
    CHECK(p["cost"]["source"] == "job");
    CHECK(p["cost"]["usd_per_gpu_hour"].get<double>() == 3.0);
  }
  CHECK(n == 3);
}

TEST_CASE("cost CLI: sweep outputs show each row's price and its source", "[cli][cost]") {
  const std::string sweep = unpriced_job() + " --sweep cluster.gpu=a100-sxm4-80gb,h100-sxm5-80gb";
  const auto table = run_command(predict(sweep));
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("price      a100-sxm4-80gb: $5.12 per GPU-hour, catalog (AWS, 2025-05)") &&
                            Catch::Contains("price      h100-sxm5-80gb: $12.29 per GPU-hour"));
  const auto csv = run_command(predict(sweep + " --format csv"));
  REQUIRE(csv.exit_code == 0);
  CHECK_THAT(csv.out, Catch::Contains("cost.usd_per_gpu_hour,cost.usd_per_hour,cost.source,cost.label"));
  CHECK_THAT(csv.out, Catch::Contains(",12.29,98.32,catalog,\"catalog (AWS, 2025-05)\""));
}

TEST_CASE("calibration CLI: each sweep and search row shows the factors it was corrected by", "[cli][calibration][issue30]") {
  // The points ran one math class (amp_fp16), so the stack's GEMM factor acts on the tf32 row too:
  // both rows show the same factors, one fit for the stack.
  const std::string dir = source_path("tests/data/calibration");
  const std::string args = dir + "/bert-8xa100.yaml --calibrate " + dir + "/measured-two.csv";
  const auto csv = run_command(predict(args + " --sweep precision=amp_fp16,tf32 --format csv"));
  REQUIRE(csv.exit_code == 0);
  CHECK_THAT(csv.out.substr(0, csv.out.find('\n')), Catch::Contains("calibration.factors"));
  CHECK(lines(csv.out) == 3);
  const auto table = run_command(predict(args + " --sweep precision=amp_fp16,tf32"));
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("calibrated GEMM/mem/comm/host") &&
                            Catch::Contains("one fit for every row: the factors acting on each in the column"));
  // One cell per row (the two rows' cells are read off their lines).
  std::vector<std::string> cells;
  std::istringstream t(table.out);
  for (std::string line; std::getline(t, line);)
    if (line.rfind("amp_fp16", 0) == 0 || line.rfind("tf32", 0) == 0) cells.push_back(line.substr(line.rfind(' ') + 1));
  REQUIRE(cells.size() == 2);
  for (const auto& c : cells) CHECK(std::count(c.begin(), c.end(), '/') == 3);
  CHECK(cells[0] == cells[1]);
  // Search: the same column in the table, calibration.factors in the CSV, per row.
  const std::string space = write_temp_file("cal-search-space.yaml",
                                            "precision: [amp_fp16, tf32]\nparallelism.tensor: [1]\n"
                                            "parallelism.pipeline: [1]\nparallelism.context: [1]\nbatch_size: [16]\n");
  const auto search = run_command(predict(args + " --search --space " + space));
  REQUIRE(search.exit_code == 0);
  CHECK_THAT(search.out, Catch::Contains("calibrated GEMM/mem/comm/host"));
  const auto search_csv = run_command(predict(args + " --search --space " + space + " --format csv"));
  REQUIRE(search_csv.exit_code == 0);
  CHECK_THAT(search_csv.out, Catch::Contains("calibration.factors") && Catch::Contains("gemm="));
}
