#include <catch2/catch.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "ptp/predict/learned/bundle.hpp"
#include "ptp/predict/learned/sha256.hpp"
#include "ptp/predict/learned/trainer.hpp"
#include "ptp/vocab/error.hpp"
#include "support/run_command.hpp"

using namespace ptp;
namespace fs = std::filesystem;

namespace {
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

TEST_CASE("jobs outside the bundle's domain fall back to analytical with a warning", "[bundle]") {
  const auto b = LearnedBundle::load(trained_bundle());
  const Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
  const auto job = resolve_job(
      parse_job_spec(YamlReader::load_string(
          "model: gpt2\nprecision: fp8\nbatch_size: 8\nseq_len: 1024\ncluster: {gpu: h100-sxm5-80gb, num_gpus: 8}\n", "j")),
      catalogs);
  const auto p = b.predict(job, AnalyticalConstants{});
  CHECK(p.predictor_kind == "analytical");
  REQUIRE_FALSE(p.warnings.empty());
  CHECK_THAT(p.warnings.back(), Catch::Contains("fp8"));
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
    const auto pos = text.find("\"schema_version\": 1");
    REQUIRE(pos != std::string::npos);
    text.replace(pos, 19, "\"schema_version\": 99");
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
  for (const char* broken : {"models", "unseen_model_correction_share"}) {
    // A manifest without the trained-model list or the share for other models, checksums consistent
    // (older bundles without the GPU list or the other shares load: every GPU counts as seen).
    const auto dir = copy_bundle();
    auto manifest = nlohmann::json::parse(ptp::test::slurp(dir + "/manifest.json"));
    manifest["domain"].erase(broken);
    const std::string text = manifest.dump(2) + "\n";
    std::ofstream(dir + "/manifest.json", std::ios::trunc) << text;
    std::ofstream(dir + "/CHECKSUM", std::ios::trunc) << sha256_hex(text) << "\n";
    CHECK_THAT(load_error(dir), Catch::Contains("manifest.json"));
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

TEST_CASE("a model without training runs gets the bundle's share of the learned correction", "[bundle]") {
  auto b = LearnedBundle::load(trained_bundle());
  CHECK(b.trained_models.count("resnet50") == 1);
  CHECK(b.shares.unseen_model == Approx(kUnseenModelCorrectionShare));
  const Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
  auto job_for = [&](const std::string& model) {
    return resolve_job(parse_job_spec(YamlReader::load_string(
                           "model: " + model +
                               "\nprecision: amp_fp16\nbatch_size: 128\ncluster: {gpu: a100-sxm4-80gb, num_gpus: 8}\n",
                           "j")),
                       catalogs);
  };
  const auto unseen = job_for("resnext101-32x4d");  // not in tests/data/train-fixture
  const auto damped_prediction = b.predict(unseen, AnalyticalConstants{});
  const double damped = damped_prediction.iteration_s;
  REQUIRE_FALSE(damped_prediction.warnings.empty());
  CHECK_THAT(damped_prediction.warnings.back(), Catch::Contains("resnext101-32x4d"));
  b.shares.unseen_model = 0;
  const double composed = b.predict(unseen, AnalyticalConstants{}).iteration_s;
  b.shares.unseen_model = 1;
  const double full = b.predict(unseen, AnalyticalConstants{}).iteration_s;
  REQUIRE(std::abs(std::log(full / composed)) > 1e-3);  // the fixture's correction is not zero here
  CHECK(std::log(damped / composed) == Approx(kUnseenModelCorrectionShare * std::log(full / composed)).epsilon(1e-6));
  // A model with training runs keeps its whole correction and no warning about it (convs are
  // outside the compute level's data, which is a different warning).
  const auto seen = b.predict(job_for("resnet50"), AnalyticalConstants{});
  for (const auto& w : seen.warnings) CHECK_THAT(w, !Catch::Contains("training runs"));
  CHECK(std::any_of(seen.warnings.begin(), seen.warnings.end(),
                    [](const std::string& w) { return w.find("conv") != std::string::npos; }));
}

TEST_CASE("a GPU without training runs gets the bundle's unseen-GPU share of the learned correction", "[bundle]") {
  auto b = LearnedBundle::load(trained_bundle());
  CHECK(b.trained_gpus.count("a100-sxm4-80gb") == 1);
  CHECK(b.trained_gpus.count("h100-sxm5-80gb") == 0);  // not in tests/data/train-fixture
  CHECK(b.shares.unseen_gpu == Approx(kUnseenGpuCorrectionShare));
  const Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
  auto job_on = [&](const std::string& gpu) {
    return resolve_job(parse_job_spec(YamlReader::load_string(
                           "model: resnet50\nprecision: amp_fp16\nbatch_size: 128\ncluster: {gpu: " + gpu +
                               ", num_gpus: 8}\n",
                           "j")),
                       catalogs);
  };
  const auto h100 = job_on("h100-sxm5-80gb");
  const auto damped = b.predict(h100, AnalyticalConstants{});
  CHECK(damped.aggregator_share == Approx(kUnseenGpuCorrectionShare));
  CHECK(std::any_of(damped.warnings.begin(), damped.warnings.end(), [](const std::string& w) {
    return w.find("GPU 'h100-sxm5-80gb' has no training runs") != std::string::npos;
  }));
  b.shares.unseen_gpu = 0;
  const double composed = b.predict(h100, AnalyticalConstants{}).iteration_s;
  b.shares.unseen_gpu = 1;
  const double full = b.predict(h100, AnalyticalConstants{}).iteration_s;
  REQUIRE(std::abs(std::log(full / composed)) > 1e-3);  // the fixture's correction is not zero here
  CHECK(std::log(damped.iteration_s / composed) ==
        Approx(kUnseenGpuCorrectionShare * std::log(full / composed)).epsilon(1e-6));
  // A GPU with training runs keeps the whole correction; an old bundle without the GPU list treats
  // every GPU as seen.
  CHECK(b.predict(job_on("a100-sxm4-80gb"), AnalyticalConstants{}).aggregator_share == 1);
  b.trained_gpus.clear();
  CHECK(b.predict(h100, AnalyticalConstants{}).aggregator_share == 1);
  // Unseen model, unseen GPU and model-parallel layout multiply.
  CHECK(learned_correction_share({false, false, true}, CorrectionShares{}) ==
        Approx(kUnseenModelCorrectionShare * kUnseenGpuCorrectionShare * kModelParallelCorrectionShare));
}

TEST_CASE("a model-parallel job beyond the trained GPUs or scale gets the bundle's model-parallel share",
          "[bundle]") {
  auto b = LearnedBundle::load(trained_bundle());
  CHECK(b.manifest()["domain"]["model_parallel"] == true);
  CHECK(b.shares.model_parallel == Approx(kModelParallelCorrectionShare));
  REQUIRE(b.max_trained_gpus >= 1);
  const Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
  auto tp2 = [&](const std::string& gpu, long long gpus) {
    return resolve_job(parse_job_spec(YamlReader::load_string(
                           "model: bert-large\nprecision: amp_fp16\nbatch_size: 16\nseq_len: 512\ncluster: {gpu: " +
                               gpu + ", num_gpus: " + std::to_string(gpus) +
                               "}\nparallelism: {tensor: 2}\nsequence_parallel: true\n",
                           "j")),
                       catalogs);
  };
  // On a GPU and at a scale with training runs the layout keeps the whole correction.
  const auto seen = tp2("a100-sxm4-80gb", 8);
  REQUIRE(8 <= b.max_trained_gpus);
  CHECK(b.predict(seen, AnalyticalConstants{}).aggregator_share == 1);
  // Beyond the largest training run: damped, and exactly by the share in log space.
  const long long beyond_gpus = 8 * (b.max_trained_gpus / 8 + 1);
  const auto beyond = tp2("a100-sxm4-80gb", beyond_gpus);
  const auto damped = b.predict(beyond, AnalyticalConstants{});
  CHECK(damped.predictor_kind == "learned");
  CHECK(damped.aggregator_share == Approx(kModelParallelCorrectionShare));
  b.shares.model_parallel = 0;
  const auto composed = b.predict(beyond, AnalyticalConstants{});
  CHECK(composed.aggregator_share == 0);
  b.shares.model_parallel = 1;
  const double full = b.predict(beyond, AnalyticalConstants{}).iteration_s;
  REQUIRE(std::abs(std::log(full / composed.iteration_s)) > 1e-3);  // the fixture's correction is not zero here
  CHECK(std::log(damped.iteration_s / composed.iteration_s) ==
        Approx(kModelParallelCorrectionShare * std::log(full / composed.iteration_s)).epsilon(1e-6));
  b.shares.model_parallel = kModelParallelCorrectionShare;
  // The same model data-parallel at that scale keeps the whole correction.
  const auto data_parallel = resolve_job(
      parse_job_spec(YamlReader::load_string("model: bert-large\nprecision: amp_fp16\nbatch_size: 16\nseq_len: 512\n"
                                             "cluster: {gpu: a100-sxm4-80gb, num_gpus: " +
                                                 std::to_string(beyond_gpus) + "}\n",
                                             "j")),
      catalogs);
  CHECK(b.predict(data_parallel, AnalyticalConstants{}).aggregator_share == 1);
  // On a GPU without training runs the layout is damped on top of the unseen-GPU share.
  CHECK(b.predict(tp2("h100-sxm5-80gb", 8), AnalyticalConstants{}).aggregator_share ==
        Approx(kUnseenGpuCorrectionShare * kModelParallelCorrectionShare));
  // A bundle from before domain.max_num_gpus damps every model-parallel job.
  b.max_trained_gpus = 0;
  CHECK(b.predict(seen, AnalyticalConstants{}).aggregator_share == Approx(kModelParallelCorrectionShare));
}
