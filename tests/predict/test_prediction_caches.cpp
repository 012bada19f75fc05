// The session caches (prediction_caches.hpp): a sweep row is the prediction a single call makes,
// the workload key separates what building a workload reads, and the hit rates are counted.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ptp/predict/predict_session.hpp"
#include "ptp/predict/prediction_caches.hpp"
#include "ptp/vocab/error.hpp"
#include "support/run_command.hpp"

using namespace ptp::predict;

namespace {

const Predictor& learned() {
  static const Predictor p(std::string(PTP_SOURCE_DIR) + "/configs", std::string(PTP_SOURCE_DIR) + "/models/default", true);
  return p;
}

// A LoRA fine-tune, so that the fine-tuning fields (which build the workload) can be swept.
const std::string& lora_job() {
  static const std::string path = ptp::test::write_temp_file(
      "lora-job.yaml",
      "model: llama3-8b\nprecision: bf16\nbatch_size: 1\nseq_len: 2048\n"
      "cluster: {gpu: h100-sxm5-80gb, num_gpus: 8}\nfinetune: {method: lora, rank: 16}\nrun: {steps: 100}\n");
  return path;
}

std::vector<nlohmann::json> rows_of(const std::string& jsonl) {
  std::vector<nlohmann::json> rows;
  std::stringstream ss(jsonl);
  for (std::string line; std::getline(ss, line);)
    if (!line.empty()) {
      auto j = nlohmann::json::parse(line);
      // The flags that made the row: --sweep values here, --set values there.
      j.erase("set");
      j.erase("sweep");
      rows.push_back(std::move(j));
    }
  return rows;
}

}  // namespace

TEST_CASE("every row of a sweep is the prediction a single call makes", "[caches][issue55]") {
  // Axes that reuse workloads (GPU count, GPU, precision) and axes that change them (micro-batch,
  // LoRA rank, sequence length), in an order where a workload comes back after others were built.
  const std::vector<SweepAxis> axes = {parse_sweep_axis("finetune.rank=8,64"), parse_sweep_axis("batch_size=1,2"),
                                       parse_sweep_axis("seq_len=1024,2048"),
                                       parse_sweep_axis("precision=bf16,fp8"),
                                       parse_sweep_axis("cluster.num_gpus=8,16")};
  PredictRequest sweep;
  sweep.job_files = {lora_job()};
  sweep.format = "jsonl";
  sweep.sweeps = axes;
  const auto swept = rows_of(run_predictions(sweep, learned()).stdout_text);
  REQUIRE(swept.size() == 32);
  std::size_t i = 0;
  for (const auto& rank : axes[0].values)
    for (const auto& batch : axes[1].values)
      for (const auto& seq : axes[2].values)
        for (const auto& precision : axes[3].values)
          for (const auto& gpus : axes[4].values) {
            PredictRequest one;
            one.job_files = {lora_job()};
            one.format = "jsonl";
            one.overrides = {{"finetune.rank", rank}, {"batch_size", batch}, {"seq_len", seq}, {"precision", precision},
                             {"cluster.num_gpus", gpus}};
            const auto single = rows_of(run_predictions(one, learned()).stdout_text);
            REQUIRE(single.size() == 1);
            INFO("rank " << rank << " batch " << batch << " seq_len " << seq << " " << precision << " x" << gpus);
            CHECK(swept[i] == single.front());
            ++i;
          }
  // The rows differ where the workload does: the cache did not hand one rank's workload to the other.
  CHECK(swept[0]["memory"] != swept[16]["memory"]);
}

TEST_CASE("the workload key holds what building a workload reads, and nothing a layout changes", "[caches][issue55]") {
  const Catalogs& catalogs = learned().catalogs();
  auto key = [&](const std::vector<Override>& flags) {
    return workload_key(resolve_job_frame(load_job_spec(lora_job(), flags), catalogs));
  };
  const std::string plain = key({});
  for (const Override& builds : std::vector<Override>{{"finetune.rank", "32"},
                                                      {"finetune.targets", "[attention]"},
                                                      {"batch_size", "2"},
                                                      {"seq_len", "4096"},
                                                      {"packing", "true"},
                                                      {"memory.untie_embeddings", "true"},
                                                      {"model", "llama3-70b"}}) {
    INFO(builds.first << "=" << builds.second);
    CHECK(key({builds}) != plain);
  }
  for (const Override& lays_out : std::vector<Override>{{"cluster.num_gpus", "16"},
                                                        {"cluster.gpu", "h200-sxm-141gb"},
                                                        {"precision", "fp8"},
                                                        {"parallelism.tensor", "2"},
                                                        {"sharding", "fsdp"}}) {
    INFO(lays_out.first << "=" << lays_out.second);
    CHECK(key({lays_out}) == plain);
  }
}

TEST_CASE("a session's workload cache counts its hits and gives each job its own refusals", "[caches][issue55]") {
  WorkloadCache cache(learned().catalogs());
  const auto job = load_job_spec(lora_job(), {});
  const ResolvedJob first = cache.resolve(job);
  const ResolvedJob again = cache.resolve(load_job_spec(lora_job(), {{"cluster.num_gpus", "16"}}));
  REQUIRE(first.shared);
  CHECK(again.shared == first.shared);
  CHECK(cache.report().workloads.hits == 1);
  CHECK(cache.report().workloads.misses == 1);
  // A layout the cached workload cannot take is refused as resolve_job refuses it, not passed on.
  const auto bad = load_job_spec(lora_job(), {{"parallelism.tensor", "3"}, {"cluster.num_gpus", "3"}});
  std::string direct, cached;
  try {
    resolve_job(bad, learned().catalogs());
  } catch (const InputError& e) {
    direct = e.what();
  }
  try {
    cache.resolve(bad);
  } catch (const InputError& e) {
    cached = e.what();
  }
  CHECK_FALSE(direct.empty());
  CHECK(cached == direct);
}

TEST_CASE("a workload cache past its size lets the oldest go and still answers as resolve_job does", "[caches][issue55]") {
  WorkloadCache cache(learned().catalogs());
  auto with_batch = [](int b) { return load_job_spec(lora_job(), {{"batch_size", std::to_string(b)}}); };
  for (int b = 1; b <= 70; ++b) cache.resolve(with_batch(b));  // 70 workloads: more than it keeps
  const ResolvedJob again = cache.resolve(with_batch(1));     // built again: the first was let go
  CHECK(cache.report().workloads.hits == 0);
  CHECK(cache.report().workloads.misses == 71);
  const ResolvedJob recent = cache.resolve(with_batch(70));  // still kept
  CHECK(cache.report().workloads.hits == 1);
  CHECK(learned().predict(again).iteration_s == learned().predict(resolve_job(with_batch(1), learned().catalogs())).iteration_s);
  CHECK(recent.shared);
}

TEST_CASE("verbose: ptp-predict --verbose prints the session's cache hit rates on stderr, and only then", "[caches][cli][issue55]") {
  PredictRequest req;
  req.job_files = {lora_job()};
  req.format = "csv";
  req.sweeps = {parse_sweep_axis("cluster.num_gpus=8,16,32,64")};
  const auto quiet = run_predictions(req, learned());
  for (const auto& line : quiet.stderr_lines) CHECK(line.find("caches:") == std::string::npos);
  req.verbose = true;
  const auto loud = run_predictions(req, learned());
  CHECK(loud.stdout_text == quiet.stdout_text);
  REQUIRE_FALSE(loud.stderr_lines.empty());
  // Four GPU counts share one workload: one build, three reuses.
  CHECK_THAT(loud.stderr_lines.back(), Catch::Contains("workloads 3 of 4 reused (75.0 %)"));
  CHECK_THAT(loud.stderr_lines.back(), Catch::Contains("learned launches"));
}

TEST_CASE("a sweep's rows and their order are the same on 1, 2 and 3 threads", "[caches][issue55]") {
  PredictRequest req;
  req.job_files = {lora_job()};
  req.format = "csv";
  // 3 x 4 x 20 = 240 points: enough for three shares of at least 64; one point refused mid-way
  // (TP 3 does not divide the heads) stays an invalid row in its place.
  req.sweeps = {parse_sweep_axis("finetune.rank=8,16,32"), parse_sweep_axis("parallelism.tensor=1,2,3,4"),
                parse_sweep_axis("cluster.num_gpus=" + [] {
                  std::string counts;
                  for (int n = 12; n <= 240; n += 12) counts += (counts.empty() ? "" : ",") + std::to_string(n);
                  return counts;
                }())};
  req.threads = 1;
  const auto one = run_predictions(req, learned());
  for (int threads : {2, 3}) {
    req.threads = threads;
    INFO(threads << " threads");
    const auto many = run_predictions(req, learned());
    CHECK(many.stdout_text == one.stdout_text);
    CHECK(many.stderr_lines == one.stderr_lines);
  }
  CHECK_THAT(one.stdout_text, Catch::Contains("false"));  // the refused TP-3 points are rows
}

TEST_CASE("a sweep point whose spec is refused ends the file with that point's error at any thread count",
          "[caches][issue55]") {
  PredictRequest req;
  req.job_files = {lora_job()};
  req.format = "csv";
  std::string counts;
  for (int n = 8; n <= 8 * 300; n += 8) counts += (counts.empty() ? "" : ",") + std::to_string(n);
  // Points 301 on have an out-of-range rank: every thread count reports the first of them.
  req.sweeps = {parse_sweep_axis("finetune.rank=16,0"), parse_sweep_axis("cluster.num_gpus=" + counts)};
  for (int threads : {1, 2, 4}) {
    req.threads = threads;
    INFO(threads << " threads");
    try {
      run_predictions(req, learned());
      FAIL("the sweep was not refused");
    } catch (const InputError& e) {
      CHECK_THAT(std::string(e.what()), Catch::StartsWith("--sweep 'finetune.rank=0': finetune.rank"));
    }
  }
}

TEST_CASE("a sharded row is not given another sharding's cached answers", "[caches][issue55]") {
  // An implied FSDP memory convention follows the sharding: the unsharded twin of an fsdp job is not
  // the unsharded twin of a zero1 job, though every job field of the twins is the same.
  const SweepAxis shardings = parse_sweep_axis("sharding=zero1,fsdp,zero2,fsdp,zero1");
  PredictRequest sweep;
  sweep.job_files = {lora_job()};
  sweep.format = "jsonl";
  sweep.overrides = {parse_unset("finetune")};
  sweep.sweeps = {shardings};
  const auto swept = rows_of(run_predictions(sweep, learned()).stdout_text);
  REQUIRE(swept.size() == shardings.values.size());
  for (std::size_t i = 0; i < swept.size(); ++i) {
    PredictRequest one;
    one.job_files = {lora_job()};
    one.format = "jsonl";
    one.overrides = {parse_unset("finetune"), {"sharding", shardings.values[i]}};
    const auto single = rows_of(run_predictions(one, learned()).stdout_text);
    REQUIRE(single.size() == 1);
    INFO(shardings.values[i]);
    CHECK(swept[i] == single.front());
  }
  CHECK(swept[0]["iteration"]["seconds"] != swept[1]["iteration"]["seconds"]);
}
