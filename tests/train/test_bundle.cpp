#include <catch2/catch.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "ptp/predict/analytical.hpp"
#include "ptp/predict/learned/bundle.hpp"
#include "ptp/predict/learned/features.hpp"
#include "ptp/predict/learned/sha256.hpp"
#include "ptp/train/trainer.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"
#include "support/run_command.hpp"

using namespace ptp::predict;
using namespace ptp::train;
namespace fs = std::filesystem;

namespace {
// The support a prediction reports, as the shrinkage reads it.
Support support_of(const Prediction& p) {
  Support s;
  s.runs_near = p.support.runs_near;
  s.outside = p.support.outside;
  s.precision_of_one_codebase = p.support.precision_of_one_codebase;
  return s;
}
// Trains once on the real fixture (no CV) and hands out copies.
const std::string& trained_bundle() {
  static const std::string dir = [] {
    TrainOptions o;
    o.data_dir = std::string(PTP_SOURCE_DIR) + "/tests/data/train-fixture";
    o.config_dir = std::string(PTP_SOURCE_DIR) + "/configs";
    o.out_dir = ptp::test::temp_dir() + "/bundle";
    o.cross_validate = false;
    o.threads = 1;
    train_bundle(o);
    return o.out_dir;
  }();
  return dir;
}
std::string copy_bundle() {
  const std::string dst = ptp::test::temp_dir() + "/copy";
  fs::copy(trained_bundle(), dst, fs::copy_options::recursive);
  return dst;
}
std::string load_error(const std::string& dir) {
  try {
    LearnedBundle::load(dir);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
void append(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::app) << text; }
}  // namespace

TEST_CASE("a trained bundle loads and answers as the learned predictor", "[bundle]") {
  const auto b = LearnedBundle::load(trained_bundle());
  CHECK(b.manifest()["schema_version"] == kBundleSchemaVersion);
  CHECK(b.manifest()["training_data"]["runs"].get<std::string>().size() == 64);
  const Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
  const auto job = resolve_job(
      parse_job_spec(YamlReader::load_string(
          "model: resnet50\nprecision: amp_fp16\nbatch_size: 256\ncluster: {gpu: a100-sxm4-80gb, num_gpus: 8}\n", "j")),
      catalogs);
  const auto p = b.predict(job, AnalyticalConstants{});
  CHECK(p.predictor_kind == "learned");
  CHECK(p.iteration_s > 0);
  CHECK(p.iteration_low_s <= p.iteration_s);
  CHECK(p.iteration_high_s >= p.iteration_s);
}

TEST_CASE("a precision with no training runs gets the other precisions' correction and says so", "[bundle][support]") {
  const auto b = LearnedBundle::load(trained_bundle());
  REQUIRE(b.codebase_offsets.count("dle") == 1);
  const Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
  const std::string yaml =
      "model: gpt2\nprecision: fp8\nbatch_size: 8\nseq_len: 1024\ncluster: {gpu: h100-sxm5-80gb, num_gpus: 8}\n";
  const auto job = resolve_job(parse_job_spec(YamlReader::load_string(yaml, "j")), catalogs);
  const auto p = b.predict(job, AnalyticalConstants{});
  CHECK(p.predictor_kind == "learned");
  CHECK(b.novelty_of(job) == Novelty::precision);
  CHECK(p.support.novelty == "precision");
  // No training run in its precision: it extrapolates, whatever the support features say.
  CHECK(p.support.extrapolating);
  CHECK(std::any_of(p.warnings.begin(), p.warnings.end(),
                    [](const std::string& w) { return w.find("no training runs in fp8") != std::string::npos; }));
  // Named after a trained codebase, it takes the band measured on held-out precisions, which is
  // never narrower than a band near the training runs (it extrapolates).
  const auto named = b.predict(resolve_job(parse_job_spec(YamlReader::load_string(yaml + "codebase: dle\n", "j")), catalogs),
                               AnalyticalConstants{});
  CHECK(named.support.extrapolating);
  CHECK(named.support.band == "known_codebase.new_precision");
  const auto& interval = b.manifest()["interval"];
  const auto& far = interval["known_codebase.new_precision"];
  for (const char* near : {"known_codebase.nearest_0_0.02", "known_codebase.nearest_0.02_0.1",
                           "known_codebase.nearest_0.1_0.3", "known_codebase.nearest_0.3_plus"}) {
    CHECK(far["log_q_low"].get<double>() <= interval[near]["log_q_low"].get<double>());
    CHECK(far["log_q_high"].get<double>() >= interval[near]["log_q_high"].get<double>());
  }
}

TEST_CASE("a precision trained by one codebase is that codebase's: another codebase extrapolates in it",
          "[bundle][support]") {
  auto b = LearnedBundle::load(trained_bundle());
  // The fixture bundle records which codebases trained each precision.
  REQUIRE(!b.precision_codebases.empty());
  for (const auto& [precision, codebases] : b.precision_codebases) CHECK(!codebases.empty());
  const Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
  const std::string yaml =
      "model: resnet50\nprecision: amp_fp16\nbatch_size: 256\ncluster: {gpu: a100-sxm4-80gb, num_gpus: 8}\n";
  auto job = [&](const std::string& extra) {
    return resolve_job(parse_job_spec(YamlReader::load_string(yaml + extra, "j")), catalogs);
  };
  b.precision_codebases["amp_fp16"] = {"dle", "lambda"};
  const auto two = b.predict(job(""), AnalyticalConstants{});
  CHECK(two.support.precision_of_one_codebase.empty());
  b.precision_codebases["amp_fp16"] = {"lambda"};
  const auto one = b.predict(job(""), AnalyticalConstants{});
  CHECK(one.support.precision_of_one_codebase == "lambda");
  CHECK(one.support.extrapolating);
  CHECK(one.aggregator_share == Approx(b.shrinkage.unknown.share(support_of(one))));
  CHECK(std::any_of(one.warnings.begin(), one.warnings.end(), [](const std::string& w) {
    return w.find("its amp_fp16 runs all come from one codebase, lambda") != std::string::npos;
  }));
  // The job of that very codebase is not extrapolating for it.
  CHECK(b.predict(job("codebase: lambda\n"), AnalyticalConstants{}).support.precision_of_one_codebase.empty());
  // The domain follows the training runs: the fixture's FP16 runs are all Lambda's, its TF32 runs
  // Lambda's and DLE's; without DLE's TF32 runs, TF32 is Lambda's too and a TF32 job naming no
  // codebase extrapolates.
  CHECK(LearnedBundle::load(trained_bundle()).precision_codebases.at("fp16") == std::set<std::string>{"lambda"});
  CHECK(LearnedBundle::load(trained_bundle()).precision_codebases.at("tf32") == std::set<std::string>{"dle", "lambda"});
  TrainOptions o;
  o.data_dir = ptp::test::temp_dir() + "/data";
  fs::copy(std::string(PTP_SOURCE_DIR) + "/tests/data/train-fixture", o.data_dir, fs::copy_options::recursive);
  const CsvTable runs = CsvTable::read_file(o.data_dir + "/runs.csv");
  std::string kept = csv_line(runs.header());
  for (const auto& row : runs.rows())
    if (!(runs.text(row, "source") == "dle" && runs.text(row, "precision") == "tf32")) kept += csv_line(row.cells);
  std::ofstream(o.data_dir + "/runs.csv", std::ios::trunc) << kept;
  o.config_dir = std::string(PTP_SOURCE_DIR) + "/configs";
  o.out_dir = ptp::test::temp_dir() + "/without-dle-tf32";
  o.cross_validate = false;
  o.threads = 1;
  train_bundle(o);
  const auto perturbed = LearnedBundle::load(o.out_dir);
  CHECK(perturbed.precision_codebases.at("tf32") == std::set<std::string>{"lambda"});
  const std::string tf32 =
      "model: resnet50\nprecision: tf32\nbatch_size: 256\ncluster: {gpu: a100-sxm4-80gb, num_gpus: 8}\n";
  const auto tf32_job = resolve_job(parse_job_spec(YamlReader::load_string(tf32, "j")), catalogs);
  CHECK(LearnedBundle::load(trained_bundle()).predict(tf32_job, AnalyticalConstants{}).support.precision_of_one_codebase.empty());
  CHECK(perturbed.predict(tf32_job, AnalyticalConstants{}).support.precision_of_one_codebase == "lambda");
  CHECK(precision_of_one_codebase({{"fp4", {"megatron-bridge"}}}, "fp4", "") == "megatron-bridge");
  CHECK(precision_of_one_codebase({{"fp4", {"megatron-bridge"}}}, "fp4", "megatron-bridge").empty());
  CHECK(precision_of_one_codebase({{"fp4", {"megatron-bridge"}}}, "fp8", "").empty());
}

TEST_CASE("a model-parallel job is outside a bundle trained on data-parallel runs only", "[bundle]") {
  const Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
  const auto job = resolve_job(
      parse_job_spec(YamlReader::load_string("model: gpt2\nprecision: fp16\nbatch_size: 8\nseq_len: 1024\n"
                                             "parallelism: {tensor: 2}\ncluster: {gpu: v100-sxm2-16gb, num_gpus: 8}\n", "j")),
      catalogs);
  CHECK_THAT(LearnedBundle::describe_domain_gap({{"domain", {{"model_parallel", false}}}}, job),
             Catch::Contains("data-parallel runs only"));
  CHECK(LearnedBundle::describe_domain_gap({{"domain", {{"model_parallel", true}}}}, job).empty());
}

TEST_CASE("corrupted or foreign bundles are refused with a clear error", "[bundle]") {
  {
    // ptp-predict reads the flattened trees; the XGBoost boosters are the training reference.
    const auto dir = copy_bundle();
    append(dir + "/aggregator.trees", "x");
    CHECK_THAT(load_error(dir), Catch::Contains("aggregator.trees") && Catch::Contains("checksum mismatch"));
  }
  {
    // A bundle from before the flattened trees (consistent checksums): one line asking to retrain.
    const auto dir = copy_bundle();
    auto manifest = nlohmann::json::parse(ptp::test::slurp(dir + "/manifest.json"));
    manifest.erase("trees");
    const std::string text = manifest.dump(2) + "\n";
    std::ofstream(dir + "/manifest.json", std::ios::trunc) << text;
    std::ofstream(dir + "/CHECKSUM", std::ios::trunc) << sha256_hex(text) << "\n";
    CHECK_THAT(load_error(dir), Catch::Contains("manifest.json") && Catch::Contains("no flattened trees") &&
                                    Catch::Contains("retrain"));
  }
  {
    const auto dir = copy_bundle();
    append(dir + "/manifest.json", " ");
    CHECK_THAT(load_error(dir), Catch::Contains("manifest.json") && Catch::Contains("checksum mismatch"));
  }
  {
    // A bundle from another schema version, with a consistent checksum.
    const auto dir = copy_bundle();
    std::string text = ptp::test::slurp(dir + "/manifest.json");
    const std::string current = "\"schema_version\": " + std::to_string(kBundleSchemaVersion);
    const auto pos = text.find(current);
    REQUIRE(pos != std::string::npos);
    text.replace(pos, current.size(), "\"schema_version\": 99");
    std::ofstream(dir + "/manifest.json", std::ios::trunc) << text;
    std::ofstream(dir + "/CHECKSUM", std::ios::trunc) << sha256_hex(text) << "\n";
    CHECK_THAT(load_error(dir), Catch::Contains("schema_version") && Catch::Contains("retrain"));
  }
  {
    // Trees of another width with consistent checksums (found by the hardening work on boosters: it
    // used to load and then fail inside XGBoost with an internal error).
    const auto dir = copy_bundle();
    fs::copy_file(dir + "/communication.trees", dir + "/aggregator.trees", fs::copy_options::overwrite_existing);
    auto manifest = nlohmann::json::parse(ptp::test::slurp(dir + "/manifest.json"));
    manifest["trees"]["aggregator"]["sha256"] = sha256_file(dir + "/aggregator.trees");
    const std::string text = manifest.dump(2) + "\n";
    std::ofstream(dir + "/manifest.json", std::ios::trunc) << text;
    std::ofstream(dir + "/CHECKSUM", std::ios::trunc) << sha256_hex(text) << "\n";
    CHECK_THAT(load_error(dir), Catch::Contains("aggregator.trees") && Catch::Contains("features"));
  }
  for (const char* broken : {"codebase_offsets", "shrinkage", "support"}) {
    // A manifest without one of the mixed model's parts, checksums consistent.
    const auto dir = copy_bundle();
    auto manifest = nlohmann::json::parse(ptp::test::slurp(dir + "/manifest.json"));
    manifest.erase(broken);
    const std::string text = manifest.dump(2) + "\n";
    std::ofstream(dir + "/manifest.json", std::ios::trunc) << text;
    std::ofstream(dir + "/CHECKSUM", std::ios::trunc) << sha256_hex(text) << "\n";
    CHECK_THAT(load_error(dir), Catch::Contains("manifest.json"));
  }
  {
    // A communication reach that no collective row could have (more nodes than ranks).
    const auto dir = copy_bundle();
    auto manifest = nlohmann::json::parse(ptp::test::slurp(dir + "/manifest.json"));
    manifest["communication_reach"] = {{"max_ranks", 2}, {"max_nodes", 4}};
    const std::string text = manifest.dump(2) + "\n";
    std::ofstream(dir + "/manifest.json", std::ios::trunc) << text;
    std::ofstream(dir + "/CHECKSUM", std::ios::trunc) << sha256_hex(text) << "\n";
    CHECK_THAT(load_error(dir), Catch::Contains("communication_reach") && Catch::Contains("max_ranks >= max_nodes"));
  }
  CHECK_THAT(load_error("/nonexistent-bundle"), Catch::Contains("not found"));
}

TEST_CASE("training is deterministic for a fixed seed", "[bundle][determinism]") {
  TrainOptions o;
  o.data_dir = std::string(PTP_SOURCE_DIR) + "/tests/data/train-fixture";
  o.config_dir = std::string(PTP_SOURCE_DIR) + "/configs";
  o.out_dir = ptp::test::temp_dir() + "/again";
  o.cross_validate = false;
  o.threads = 1;
  train_bundle(o);
  for (const char* f : {"aggregator.ubj", "compute.ubj", "communication.ubj", "aggregator.trees", "compute.trees",
                        "communication.trees", "manifest.json"}) {
    INFO(f);
    CHECK(sha256_file(o.out_dir + "/" + f) == sha256_file(trained_bundle() + "/" + f));
  }
}

TEST_CASE("cross-validation gives the same figures whether its folds run on one thread or two",
          "[bundle][determinism]") {
  auto train_with = [](int threads) {
    TrainOptions o;
    o.data_dir = std::string(PTP_SOURCE_DIR) + "/tests/data/train-fixture";
    o.config_dir = std::string(PTP_SOURCE_DIR) + "/configs";
    o.out_dir = ptp::test::temp_dir() + "/cv-threads-" + std::to_string(threads);
    o.cross_validate = true;
    o.threads = threads;
    train_bundle(o);
    return o.out_dir;
  };
  const std::string one = train_with(1), two = train_with(2);
  for (const char* f : {"manifest.json", "report/predictions.csv", "aggregator.ubj"}) {
    INFO(f);
    CHECK(sha256_file(one + "/" + f) == sha256_file(two + "/" + f));
  }
}

namespace {
ResolvedJob fixture_job(const std::string& yaml) {
  static const Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
  return resolve_job(parse_job_spec(YamlReader::load_string(yaml, "j")), catalogs);
}
}  // namespace

TEST_CASE("the learned correction a job gets is the bundle's fitted share of its support", "[bundle][support]") {
  auto b = LearnedBundle::load(trained_bundle());
  REQUIRE_FALSE(b.support.empty());
  // A configuration the fixture has a run of (Lambda, ResNet-50 AMP on 8 A100-40GB at 640 per GPU).
  const auto near = fixture_job(
      "model: resnet50\nprecision: amp_fp16\nbatch_size: 640\noptimizer: momentum\ncluster: {gpu: a100-sxm4-40gb, num_gpus: 8}\n");
  const auto p = b.predict(near, AnalyticalConstants{});
  REQUIRE(p.support.assessed);
  CHECK(p.support.runs_near > 0);
  CHECK(p.aggregator_share == Approx(b.shrinkage.unknown.share(support_of(p))));
  // The share is applied in log space between the analytical answer (no share: the learned levels
  // step aside entirely, compute and communication included) and the whole learned answer.
  const double analytical = predict_analytical(near, AnalyticalConstants{}).iteration_s;
  const auto fitted = b.shrinkage.unknown;
  b.shrinkage.unknown = {0, 0, 0};
  CHECK(b.predict(near, AnalyticalConstants{}).iteration_s == Approx(analytical).epsilon(1e-6));
  b.shrinkage.unknown = {1, 0, 1};
  const double full = b.predict(near, AnalyticalConstants{}).iteration_s;
  b.shrinkage.unknown = fitted;
  REQUIRE(std::abs(std::log(full / analytical)) > 1e-3);  // the fixture's learned answer departs from it here
  CHECK(std::log(p.iteration_s / analytical) == Approx(p.aggregator_share * std::log(full / analytical)).epsilon(1e-5));
  // Far beyond every training run's scale: extrapolating, said in a warning, the wider band.
  const auto far = b.predict(
      fixture_job("model: resnet50\nprecision: amp_fp16\nbatch_size: 128\ncluster: {gpu: a100-sxm4-80gb, num_gpus: 4096}\n"),
      AnalyticalConstants{});
  CHECK(far.support.extrapolating);
  CHECK(std::find(far.support.outside.begin(), far.support.outside.end(), "log2_num_gpus") != far.support.outside.end());
  CHECK(std::any_of(far.warnings.begin(), far.warnings.end(),
                    [](const std::string& w) { return w.find("extrapolating") != std::string::npos; }));
  const auto& wide = b.bands.at("unknown_codebase.extrapolating");
  CHECK(far.iteration_high_s / far.iteration_s == Approx(std::exp(wide.log_q_high)));
}

TEST_CASE("a sharded job shrinks toward its own analytical answer, its forward and backward as if unsharded",
          "[bundle][support]") {
  auto b = LearnedBundle::load(trained_bundle());
  b.shrinkage.unknown_by_kind.clear();
  const std::string base =
      "model: gpt2-xl\nprecision: amp_bf16\nbatch_size: 4\nseq_len: 1024\ngrad_accum: 2\n"
      "cluster: {gpu: a100-sxm4-80gb, num_gpus: 16, inter_node: ib-hdr-200}\n";
  // Share 0: every sharding lands on its own analytical step (the aggregator's row is the unsharded
  // twin's; anchored on the twin, a sharded job's step moved by the twin's optimizer and all-reduce).
  b.shrinkage.unknown = {0, 0, 0};
  for (const char* sharding : {"none", "zero1", "zero2", "fsdp"}) {
    INFO(sharding);
    const auto j = fixture_job(base + "sharding: " + sharding + "\n");
    const auto an = predict_analytical(j, AnalyticalConstants{});
    const auto p = b.predict(j, AnalyticalConstants{});
    CHECK(p.iteration_s == Approx(an.iteration_s).epsilon(1e-6));
    CHECK(p.breakdown.optimizer + p.breakdown.dp_communication ==
          Approx(an.breakdown.optimizer + an.breakdown.dp_communication).epsilon(1e-6));
  }
  // Any share: ZeRO-1/2 shard optimizer state and gradients, so forward and backward do not move.
  b.shrinkage.unknown = {0.6, 0, 1};
  const auto none = b.predict(fixture_job(base + "sharding: none\n"), AnalyticalConstants{});
  for (const char* sharding : {"zero1", "zero2"}) {
    INFO(sharding);
    const auto p = b.predict(fixture_job(base + "sharding: " + sharding + "\n"), AnalyticalConstants{});
    CHECK(p.breakdown.forward == Approx(none.breakdown.forward).epsilon(1e-9));
    CHECK(p.breakdown.backward == Approx(none.breakdown.backward).epsilon(1e-9));
  }
}

TEST_CASE("an unknown codebase's share is its workload kind's where the bundle fitted one", "[bundle][support]") {
  auto b = LearnedBundle::load(trained_bundle());
  const auto resnet = fixture_job(
      "model: resnet50\nprecision: amp_fp16\nbatch_size: 640\noptimizer: momentum\ncluster: {gpu: a100-sxm4-40gb, num_gpus: 8}\n");
  const auto bert = fixture_job("model: bert-large\nprecision: amp_fp16\nbatch_size: 32\nseq_len: 512\ncluster: {gpu: a100-sxm4-40gb, num_gpus: 8}\n");
  REQUIRE(resnet.model->workload_kind == "resnet");
  REQUIRE(bert.model->workload_kind != "resnet");
  b.shrinkage.unknown_by_kind.clear();
  b.shrinkage.unknown = {1, 0, 1};
  const double bert_pooled = b.predict(bert, AnalyticalConstants{}).iteration_s;
  // ResNets' own shrinkage at share 0: the analytical answer, whatever the pooled one says.
  b.shrinkage.unknown_by_kind["resnet"] = {0, 0, 0};
  const auto p = b.predict(resnet, AnalyticalConstants{});
  CHECK(p.aggregator_share == 0);
  CHECK(p.iteration_s == Approx(predict_analytical(resnet, AnalyticalConstants{}).iteration_s).epsilon(1e-6));
  // Another kind keeps the pooled shrinkage, and a named codebase the known one.
  CHECK(b.predict(bert, AnalyticalConstants{}).iteration_s == Approx(bert_pooled).epsilon(1e-12));
  const auto named = b.predict(fixture_job("model: resnet50\nprecision: amp_fp16\nbatch_size: 640\noptimizer: momentum\n"
                                           "codebase: dle\ncluster: {gpu: a100-sxm4-40gb, num_gpus: 8}\n"),
                               AnalyticalConstants{});
  CHECK(named.aggregator_share == Approx(b.shrinkage.known.share(support_of(named))));
}

TEST_CASE("a job's band is scaled by its workload kind's fitted factor", "[bundle][support]") {
  auto b = LearnedBundle::load(trained_bundle());
  const auto j = fixture_job(
      "model: resnet50\nprecision: amp_fp16\nbatch_size: 640\noptimizer: momentum\ncluster: {gpu: a100-sxm4-40gb, num_gpus: 8}\n");
  REQUIRE(j.model->workload_kind == "resnet");
  for (auto& [name, band] : b.bands) band = {-0.1, 0.2};  // the fixture is trained without CV: zero-width bands
  b.band_scale_by_kind.erase("resnet");
  const auto unscaled = b.predict(j, AnalyticalConstants{});
  REQUIRE(unscaled.iteration_high_s > unscaled.iteration_s);
  b.band_scale_by_kind["resnet"] = 2;
  const auto doubled = b.predict(j, AnalyticalConstants{});
  CHECK(doubled.iteration_s == Approx(unscaled.iteration_s).epsilon(1e-12));  // the answer itself does not move
  CHECK(std::log(doubled.iteration_high_s / doubled.iteration_s) ==
        Approx(2 * std::log(unscaled.iteration_high_s / unscaled.iteration_s)).epsilon(1e-9));
  CHECK(std::log(doubled.iteration_low_s / doubled.iteration_s) ==
        Approx(2 * std::log(unscaled.iteration_low_s / unscaled.iteration_s)).epsilon(1e-9));
  // Another kind's scale leaves this job's band alone.
  b.band_scale_by_kind["resnet"] = 1;
  b.band_scale_by_kind["transformer/decoder-only"] = 3;
  CHECK(b.predict(j, AnalyticalConstants{}).iteration_high_s == Approx(unscaled.iteration_high_s).epsilon(1e-12));
}

TEST_CASE("an unknown codebase keeps the fitted part of the typical correction's level", "[bundle][support]") {
  auto b = LearnedBundle::load(trained_bundle());
  REQUIRE(std::abs(b.typical_level) > 1e-3);  // the fixture's typical correction departs from the analytical level
  const auto j = fixture_job(
      "model: resnet50\nprecision: amp_fp16\nbatch_size: 640\noptimizer: momentum\ncluster: {gpu: a100-sxm4-40gb, num_gpus: 8}\n");
  b.shrinkage.unknown.level_kept = 1;
  const auto kept = b.predict(j, AnalyticalConstants{});
  b.shrinkage.unknown.level_kept = 0;
  const auto removed = b.predict(j, AnalyticalConstants{});
  // The level leaves in log space, scaled by the job's share; the band moves with the answer.
  CHECK(std::log(kept.iteration_s / removed.iteration_s) == Approx(kept.aggregator_share * b.typical_level).epsilon(1e-4));
  CHECK(kept.iteration_high_s / kept.iteration_s == Approx(removed.iteration_high_s / removed.iteration_s));
  // A job naming a trained codebase has its own offset for a level and keeps the whole correction.
  b.shrinkage.known.level_kept = 1;
  const auto named = b.predict(fixture_job(
      "model: resnet50\nprecision: amp_fp16\nbatch_size: 640\noptimizer: momentum\ncodebase: dle\ncluster: {gpu: a100-sxm4-40gb, num_gpus: 8}\n"), AnalyticalConstants{});
  b.shrinkage.unknown.level_kept = 1;
  const auto named_again = b.predict(fixture_job(
      "model: resnet50\nprecision: amp_fp16\nbatch_size: 640\noptimizer: momentum\ncodebase: dle\ncluster: {gpu: a100-sxm4-40gb, num_gpus: 8}\n"), AnalyticalConstants{});
  CHECK(named.iteration_s == Approx(named_again.iteration_s).epsilon(1e-12));
}

TEST_CASE("a job naming a trained codebase gets its offset and band; an unknown name a warning", "[bundle][support]") {
  auto b = LearnedBundle::load(trained_bundle());
  REQUIRE(b.codebase_offsets.count("dle") == 1);  // the fixture has no codebase column: its sources stand in
  const std::string job = "model: resnet50\nprecision: amp_fp16\nbatch_size: 128\ncluster: {gpu: a100-sxm4-80gb, num_gpus: 8}\n";
  const auto typical = b.predict(fixture_job(job), AnalyticalConstants{});
  b.codebase_offsets["dle"] = 0.25;
  const auto named = b.predict(fixture_job(job + "codebase: dle\n"), AnalyticalConstants{});
  CHECK(named.support.codebase_known);
  CHECK(named.aggregator_share == Approx(b.shrinkage.known.share(support_of(named))));
  // Offset added in log space on top of the (known-codebase) share of the typical correction.
  b.codebase_offsets["dle"] = 0;
  const auto named0 = b.predict(fixture_job(job + "codebase: dle\n"), AnalyticalConstants{});
  b.codebase_offsets["dle"] = 0.25;
  CHECK(std::log(named.iteration_s / named0.iteration_s) == Approx(0.25).epsilon(1e-6));
  CHECK(named.support.band == band_name(true, b.novelty_of(fixture_job(job + "codebase: dle\n")),
                                        support_of(named)));
  const auto& band = b.bands.at(named.support.band);
  CHECK(named.iteration_low_s / named.iteration_s == Approx(std::exp(band.log_q_low)));
  const auto unknown = b.predict(fixture_job(job + "codebase: my-own-stack\n"), AnalyticalConstants{});
  CHECK_FALSE(unknown.support.codebase_known);
  CHECK(unknown.iteration_s == Approx(typical.iteration_s).epsilon(1e-12));
  CHECK(std::any_of(unknown.warnings.begin(), unknown.warnings.end(),
                    [](const std::string& w) { return w.find("codebase 'my-own-stack' has no training runs") != std::string::npos; }));
}

// Issue 30, item 3: ptp-train says what it trained on and what it left out, and why; a --no-cv
// bundle's band has no held-out residuals behind it, which ptp-predict must say.
TEST_CASE("training reports rows used and skipped with reasons; a --no-cv band is flagged", "[bundle][issue30]") {
  const fs::path data = ptp::test::temp_dir();
  fs::copy(std::string(PTP_SOURCE_DIR) + "/tests/data/train-fixture", data, fs::copy_options::recursive);
  const fs::path gemm = data / "ops" / "neusight-gemm.csv";
  std::string text = ptp::test::slurp(gemm.string());
  const auto second = text.find('\n') + 1;
  std::string row = text.substr(second, text.find('\n', second) - second);
  const auto gpu = row.find(",p4,");
  REQUIRE(gpu != std::string::npos);
  row.replace(gpu, 4, ",host,");
  std::ofstream(gemm, std::ios::app) << row << "\n" << row << "\n";
  TrainOptions o;
  o.data_dir = data.string();
  o.config_dir = std::string(PTP_SOURCE_DIR) + "/configs";
  o.out_dir = ptp::test::temp_dir() + "/bundle";
  o.cross_validate = false;
  o.threads = 1;
  std::vector<std::string> log;
  o.log = [&](const std::string& line) { log.push_back(line); };
  const auto result = train_bundle(o);
  const auto& d = result.metrics["data"];
  for (const char* table : {"runs", "ops", "collectives"}) {
    INFO(table);
    int reasons = 0;
    for (const auto& [why, n] : d[table]["reasons"].items()) reasons += n.get<int>();
    CHECK(d[table]["skipped"].get<int>() == reasons);
    CHECK(d[table]["used"].get<int>() + reasons == d[table]["read"].get<int>());
    CHECK(d[table]["used"].get<int>() > 0);
  }
  CHECK(d["ops"]["reasons"]["host-backend row (no GPU timed)"].get<int>() == 2);
  auto logged = [&](const std::string& what) {
    return std::any_of(log.begin(), log.end(), [&](const std::string& l) { return l.find(what) != std::string::npos; });
  };
  CHECK(logged("ops: "));
  CHECK(logged("2 host-backend row (no GPU timed)"));
  CHECK(logged("runs: "));
  CHECK_THAT(result.report_markdown, Catch::Contains("## Data used and skipped") &&
                                         Catch::Contains("2 host-backend row (no GPU timed)") &&
                                         Catch::Contains("not calibrated (zero width)"));

  const auto b = LearnedBundle::load(o.out_dir);
  const Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
  const auto job = resolve_job(
      parse_job_spec(YamlReader::load_string(
          "model: resnet50\nprecision: amp_fp16\nbatch_size: 256\ncluster: {gpu: a100-sxm4-80gb, num_gpus: 8}\n", "j")),
      catalogs);
  const auto p = b.predict(job, AnalyticalConstants{});
  REQUIRE(p.predictor_kind == "learned");
  CHECK(std::any_of(p.warnings.begin(), p.warnings.end(), [](const std::string& w) {
    return w.find("--no-cv") != std::string::npos && w.find("not calibrated (zero width)") != std::string::npos;
  }));
  fs::remove_all(data);
}

TEST_CASE("support points read apart from the manifest give nlohmann's numbers", "[bundle]") {
  // LearnedBundle::load reads manifest.json's support points with std::from_chars and the rest with
  // nlohmann; a manifest it cannot read that way (here: a second "points" key) goes whole through
  // nlohmann. The shipped bundle, and one whose points are spelled otherwise (integers, -0, an
  // exponent), must predict the same either way, to the bit.
  const std::string shipped = std::string(PTP_SOURCE_DIR) + "/models/default";
  std::ifstream in(shipped + "/manifest.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t points = text.find("\"points\"");
  REQUIRE(points != std::string::npos);
  std::string odd = text;
  // The first long decimal among the points (whatever a retrain wrote), respelled with its point
  // one place to the right and an exponent: 1.2402873 -> 12.402873E-1.
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t number = std::string::npos, dot = 0, end = 0;
  for (std::size_t i = points; i + 1 < odd.size() && number == std::string::npos; ++i) {
    if (digit(odd[i - 1]) || odd[i - 1] == '.' || odd[i] < '1' || odd[i] > '9') continue;
    std::size_t j = i;
    while (j < odd.size() && digit(odd[j])) ++j;
    if (j >= odd.size() || odd[j] != '.') continue;
    std::size_t k = j + 1;
    while (k < odd.size() && digit(odd[k])) ++k;
    if (k - j - 1 >= 6) number = i, dot = j, end = k;
  }
  REQUIRE(number != std::string::npos);
  const std::string whole_part = odd.substr(number, dot - number), fraction = odd.substr(dot + 1, end - dot - 1);
  const std::string respelled = whole_part + fraction.substr(0, 1) + "." + fraction.substr(1) + "E-1";
  odd.replace(number, end - number, respelled);
  const std::size_t zero = odd.find("0.0,", points);
  REQUIRE(zero != std::string::npos);
  odd.replace(zero, 4, "-0,");
  auto variant = [&](const std::string& name, std::string manifest, bool whole) {
    if (whole) manifest.insert(manifest.find('{') + 1, "\"x\": {\"points\": 0},");
    const std::string dir = ptp::test::temp_dir() + "/" + name;
    fs::copy(shipped, dir, fs::copy_options::recursive);
    std::ofstream(dir + "/manifest.json", std::ios::trunc) << manifest;
    std::ofstream(dir + "/CHECKSUM", std::ios::trunc) << sha256_hex(manifest) << "\n";
    return LearnedBundle::load(dir);
  };
  const Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
  std::vector<ResolvedJob> jobs;
  for (const char* file : {"resnet50-amp-8xa100.yaml", "gpt2-xl-bf16-32xh100.yaml", "llama3-70b-fp8-256xh100.yaml"})
    jobs.push_back(resolve_job(load_job_spec(std::string(PTP_SOURCE_DIR) + "/configs/jobs/" + file), catalogs));
  const auto reference = LearnedBundle::load(shipped);
  for (const auto* name : {"apart", "whole", "odd-apart", "odd-whole"}) {
    const std::string n = name;
    const auto b = variant(n, n.rfind("odd", 0) == 0 ? odd : text, n.find("whole") != std::string::npos);
    INFO(name);
    for (const auto& job : jobs) {
      const auto p = b.predict(job, AnalyticalConstants{}), q = reference.predict(job, AnalyticalConstants{});
      CHECK(p.iteration_s == q.iteration_s);
      CHECK(p.aggregator_share == q.aggregator_share);
      CHECK(p.support.runs_near == q.support.runs_near);
      CHECK(p.support.outside == q.support.outside);
    }
  }
}
