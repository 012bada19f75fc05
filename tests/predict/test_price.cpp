// The price of a GPU-hour (price.hpp): the job's cost.usd_per_gpu_hour for the GPU it was given for,
// else the catalog's list price, else none (never the job's price for another GPU); and the
// catalog's price: mapping, refused with file:line:column when it is wrong.
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>

#include "ptp/predict/analytical.hpp"
#include "ptp/predict/job_spec.hpp"
#include "ptp/predict/output.hpp"
#include "ptp/predict/price.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/hardware.hpp"
#include "ptp/vocab/yaml_reader.hpp"
#include "support/run_command.hpp"

using namespace ptp::predict;

namespace {
const Catalogs& catalogs() {
  static const Catalogs c(std::string(PTP_SOURCE_DIR) + "/configs");
  return c;
}
const GpuSpec& gpu(const std::string& id) { return *catalogs().gpus().find(id); }

// A job file on `gpu_id`, optionally priced, loaded with `flags` (--set / --unset) as the CLI does.
JobSpec job(const std::string& gpu_id, const std::string& cost, const std::vector<Override>& flags = {}) {
  std::string text = "model: resnet50\nprecision: amp_fp16\nbatch_size: 64\ncluster: {gpu: " + gpu_id +
                     ", num_gpus: 8}\nrun: {steps: 1000}\n";
  if (!cost.empty()) text += "cost: {usd_per_gpu_hour: " + cost + "}\n";
  static int n = 0;
  const std::string path = ptp::test::write_temp_file("price-job-" + std::to_string(++n) + ".yaml", text);
  return load_job_spec(path, flags);
}

GpuPrice price_of(const std::string& text) {
  return parse_gpu_price(YamlReader::load_string(text, "gpus/x.yaml").child("price"));
}
}  // namespace

TEST_CASE("the job's price is for the GPU the job file names", "[price]") {
  const auto j = job("a100-sxm4-80gb", "2.5");
  CHECK(j.price_gpu == "a100-sxm4-80gb");
  const auto q = resolve_price(j, gpu("a100-sxm4-80gb"), catalogs().gpus());
  CHECK(q.source == "job");
  CHECK(q.label == "job");
  CHECK(q.usd_per_gpu_hour == 2.5);
  // An alias of the same GPU is the same GPU.
  CHECK(resolve_price(job("A100-SXM4-80GB", "2.5"), gpu("a100-sxm4-80gb"), catalogs().gpus()).source == "job");
}

TEST_CASE("another GPU is priced from the catalog, with provider and date", "[price]") {
  const auto j = job("a100-sxm4-80gb", "2.5");
  const auto q = resolve_price(j, gpu("h100-sxm5-80gb"), catalogs().gpus());
  CHECK(q.source == "catalog");
  CHECK(q.usd_per_gpu_hour == gpu("h100-sxm5-80gb").price.usd_per_gpu_hour);
  CHECK(q.label == "catalog (AWS, 2025-05)");
  // Without a job price the job's own GPU is priced from the catalog too.
  CHECK(resolve_price(job("a100-sxm4-80gb", ""), gpu("a100-sxm4-80gb"), catalogs().gpus()).source == "catalog");
}

TEST_CASE("a GPU the catalog does not price has no price: the job's price is for its own GPU only", "[price]") {
  REQUIRE_FALSE(gpu("rtx-a6000").price.known());
  // The job priced its A100: the A6000 does not borrow that price (issue 54), it has none, and the
  // label says whose GPU the job's price was for.
  const auto q = resolve_price(job("a100-sxm4-80gb", "2.5"), gpu("rtx-a6000"), catalogs().gpus());
  CHECK(q.source == "none");
  CHECK_FALSE(q.known());
  CHECK(q.usd_per_gpu_hour == 0);
  CHECK(q.label == "none (the job's price is for a100-sxm4-80gb)");
  const auto none = resolve_price(job("a100-sxm4-80gb", ""), gpu("rtx-a6000"), catalogs().gpus());
  CHECK(none.source == "none");
  CHECK(none.label == "none");
  CHECK_FALSE(none.known());
  // The same for the GPUs of the report: an H100 job's price prices neither an H200 nor a B200.
  for (const std::string other : {"h200-sxm-141gb", "b200-sxm-180gb"}) {
    INFO(other);
    REQUIRE_FALSE(gpu(other).price.known());
    CHECK(resolve_price(job("h100-sxm5-80gb", "2.0"), gpu(other), catalogs().gpus()).source == "none");
  }
  // And a prediction on it has no cost, and says why.
  const auto p = predict_analytical(resolve_job(job("a100-sxm4-80gb", "2.5", {parse_override("cluster.gpu=rtx-a6000")}), catalogs()));
  CHECK_FALSE(p.has_cost);
  CHECK(prediction_json(p)["cost"]["source"] == "none");
  CHECK(prediction_json(p)["total"]["cost_usd"].is_null());
  CHECK_THAT(render_table(p), Catch::Contains("no price: the catalog has none for rtx-a6000; the job's price is for "
                                              "a100-sxm4-80gb; --set cost.usd_per_gpu_hour prices any GPU"));
}

TEST_CASE("flags: a --set GPU keeps the file's price on the file's GPU; a --set price is for any GPU", "[price]") {
  const auto moved = job("a100-sxm4-80gb", "2.5", {parse_override("cluster.gpu=h100-sxm5-80gb")});
  CHECK(moved.cluster.gpu == "h100-sxm5-80gb");
  CHECK(moved.price_gpu == "a100-sxm4-80gb");
  CHECK(resolve_price(moved, gpu("h100-sxm5-80gb"), catalogs().gpus()).source == "catalog");
  const auto flagged = job("a100-sxm4-80gb", "", {parse_override("cost.usd_per_gpu_hour=1.75"),
                                                   parse_override("cluster.gpu=rtx-a6000")});
  CHECK(flagged.price_gpu.empty());
  const auto q = resolve_price(flagged, gpu("rtx-a6000"), catalogs().gpus());
  CHECK(q.source == "job");
  CHECK(q.usd_per_gpu_hour == 1.75);
  CHECK(job("a100-sxm4-80gb", "2.5", {parse_unset("cost")}).usd_per_gpu_hour == std::nullopt);
}

TEST_CASE("a prediction carries its price: cost = GPU-hours x price, $/hour = price x GPUs", "[price]") {
  const auto p = predict_analytical(resolve_job(job("a100-sxm4-80gb", ""), catalogs()));
  const double list = gpu("a100-sxm4-80gb").price.usd_per_gpu_hour;
  REQUIRE(p.has_cost);
  CHECK(p.price.source == "catalog");
  CHECK(p.cost_usd == Approx(p.gpu_hours * list));
  CHECK(p.usd_per_hour == Approx(8 * list));
  const auto j = prediction_json(p);
  CHECK(j["cost"]["source"] == "catalog");
  CHECK(j["cost"]["usd_per_hour"].get<double>() == Approx(8 * list));
  CHECK_THAT(render_table(p), Catch::Contains("cost       $") && Catch::Contains("catalog (AWS, 2025-05)"));
  const auto none = predict_analytical(resolve_job(job("rtx-a6000", ""), catalogs()));
  CHECK_FALSE(none.has_cost);
  CHECK(prediction_json(none)["cost"]["usd_per_hour"].is_null());
  CHECK(prediction_json(none)["total"]["cost_usd"].is_null());
  CHECK_THAT(render_table(none), Catch::Contains("no price") && Catch::Contains("cost.usd_per_gpu_hour"));
}

TEST_CASE("every catalog price names its provider, source and date", "[price][catalog]") {
  int priced = 0;
  for (const auto& g : catalogs().gpus().all()) {
    if (!g.price.known()) continue;
    INFO(g.id);
    ++priced;
    CHECK(!g.price.provider.empty());
    CHECK(!g.price.source.empty());
    CHECK(g.price.as_of.size() >= 7);
    CHECK(g.price.usd_per_gpu_hour < 100);
  }
  CHECK(priced >= 4);
  // AWS p4de.24xlarge: $40.9657 per hour for 8 A100 SXM4 80GB.
  CHECK(gpu("a100-sxm4-80gb").price.usd_per_gpu_hour == Approx(40.9657 / 8).epsilon(1e-4));
}

TEST_CASE("a catalog price that is negative, not a number or undated is refused with file:line:column", "[price]") {
  const std::string ok = "price:\n  usd_per_gpu_hour: 5.12\n  provider: AWS\n  source: p4de\n  as_of: 2025-05\n";
  CHECK(price_of(ok).usd_per_gpu_hour == 5.12);
  CHECK(price_of(ok).as_of == "2025-05");
  const std::vector<std::pair<std::string, std::string>> bad{
      {"price:\n  usd_per_gpu_hour: -1\n  provider: AWS\n  source: s\n  as_of: 2025-05\n",
       "gpus/x.yaml:2:21: price.usd_per_gpu_hour: value -1 out of range"},
      {"price:\n  usd_per_gpu_hour: five\n  provider: AWS\n  source: s\n  as_of: 2025-05\n",
       "gpus/x.yaml:2:21: price.usd_per_gpu_hour: expected a number"},
      {"price:\n  usd_per_gpu_hour: 5\n  provider: AWS\n  source: s\n  as_of: May 2025\n",
       "gpus/x.yaml:5:10: price.as_of: expected a date YYYY-MM-DD or YYYY-MM"},
      {"price:\n  usd_per_gpu_hour: 5\n  provider: AWS\n  source: s\n", "as_of: missing required field"},
      {"price:\n  usd_per_gpu_hour: 5\n  provider: AWS\n  source: s\n  as_of: 2025-05\n  region: us\n",
       "price.region: unknown key"},
      {"price: 5.12\n", "price: expected a mapping"},
  };
  for (const auto& [text, message] : bad) {
    INFO(text);
    try {
      price_of(text);
      FAIL("expected an error");
    } catch (const InputError& e) {
      CHECK_THAT(e.what(), Catch::Contains(message));
    }
  }
}
