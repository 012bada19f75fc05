// The learned compute level answers op times: change its kernel data for one GPU and a job on that
// GPU moves, a job on another GPU does not (much).
//
// SYNTHETIC PERTURBATION, TESTS ONLY: the copy of the training fixture made here has its real L4
// GEMM and batched-GEMM kernel rows made 2x slower. Nothing is written back to tests/data or
// datasets/; no bundle trained on these rows is ever shipped.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ptp/predict/learned/bundle.hpp"
#include "ptp/predict/learned/trainer.hpp"
#include "ptp/predict/job_spec.hpp"
#include "ptp/predict/resolved_job.hpp"
#include "support/run_command.hpp"

using namespace ptp;
namespace fs = std::filesystem;

namespace {

// Rewrites `time_s` of the rows on `gpu` in one ops CSV (the fixture's files have no quoted commas).
void slow_down(const std::string& path, const std::string& gpu, double factor) {
  std::ifstream in(path);
  std::string header, line, out;
  std::getline(in, header);
  out = header + "\n";
  std::vector<std::string> names;
  {
    std::stringstream h(header);
    for (std::string c; std::getline(h, c, ',');) names.push_back(c);
  }
  const auto col = [&](const std::string& n) {
    return static_cast<std::size_t>(std::find(names.begin(), names.end(), n) - names.begin());
  };
  const std::size_t gpu_col = col("gpu"), time_col = col("time_s");
  REQUIRE(gpu_col < names.size());
  REQUIRE(time_col < names.size());
  int changed = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream l(line);
    for (std::string c; std::getline(l, c, ',');) cells.push_back(c);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    if (cells.size() > time_col && cells[gpu_col] == gpu) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.9g", std::stod(cells[time_col]) * factor);
      cells[time_col] = buf;
      ++changed;
    }
    for (std::size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + cells[i];
    out += "\n";
  }
  REQUIRE(changed > 0);
  std::ofstream(path, std::ios::trunc) << out;
}

std::string train(const std::string& data) {
  TrainOptions o;
  o.data_dir = data;
  o.config_dir = std::string(PTP_SOURCE_DIR) + "/configs";
  o.out_dir = ptp::test::temp_dir() + "/bundle";
  o.cross_validate = false;
  o.threads = 1;
  train_bundle(o);
  return o.out_dir;
}

ResolvedJob job(const std::string& yaml, const Catalogs& catalogs) {
  return resolve_job(parse_job_spec(YamlReader::load_string(yaml, "job")), catalogs);
}

// The step composed through the bundle's learned levels, before the aggregator.
Prediction composed(const LearnedBundle& b, const ResolvedJob& j) {
  AnalyticalConstants k;
  b.compute->prepare(j);
  k.op_model = b.compute.get();
  k.collective_model = b.communication.get();
  return predict_analytical(j, k);
}

}  // namespace

TEST_CASE("the learned compute level answers op times and follows its kernel data", "[learned][levels]") {
  const std::string fixture = std::string(PTP_SOURCE_DIR) + "/tests/data/train-fixture";
  const std::string perturbed = ptp::test::temp_dir() + "/data";
  fs::copy(fixture, perturbed, fs::copy_options::recursive);
  for (const char* f : {"/ops/neusight-gemm.csv", "/ops/neusight-batched_gemm.csv"}) slow_down(perturbed + f, "l4", 2.0);

  const auto base = LearnedBundle::load(train(fixture));
  const auto slow = LearnedBundle::load(train(perturbed));
  const Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
  const auto l4 = job("model: gpt2\nprecision: fp32\nbatch_size: 8\nseq_len: 1024\ncluster: {gpu: l4, num_gpus: 1}\n",
                      catalogs);
  const auto v100 = job("model: gpt2\nprecision: fp32\nbatch_size: 8\nseq_len: 1024\n"
                        "cluster: {gpu: v100-pcie-32gb, num_gpus: 1}\n",
                        catalogs);

  const auto l4_base = composed(base, l4), l4_slow = composed(slow, l4);
  // Most of the FP32 GPT-2 step is GEMMs, which the compute level answers.
  CHECK(l4_base.compute_learned_share >= 0.5);
  CHECK(l4_slow.compute_learned_share >= 0.5);
  // 2x slower GEMM kernels on L4: the composed L4 step is much slower (GEMMs are most of it, and
  // L4 x fp32 has kernel rows, so the learned time stands alone there; 1.68x when written)...
  CHECK(l4_slow.iteration_s > 1.4 * l4_base.iteration_s);
  // ... and a V100 job, whose kernel rows did not change, moves far less.
  const double v100_ratio = composed(slow, v100).iteration_s / composed(base, v100).iteration_s;
  CHECK(v100_ratio < 1.15);
  CHECK(v100_ratio > 1 / 1.15);
  // The full learned prediction (aggregator applied) moves with it.
  const auto full_base = base.predict(l4, AnalyticalConstants{}), full_slow = slow.predict(l4, AnalyticalConstants{});
  CHECK(full_base.predictor_kind == "learned");
  CHECK(full_slow.iteration_s > 1.4 * full_base.iteration_s);  // 1.65x when written
}
