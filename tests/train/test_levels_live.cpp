// Every learned level answers and follows its own training data: change the kernel rows for one GPU
// and a job on that GPU moves (a job on another GPU does not, much); change the all-reduce rows and
// a data-parallel job's communication moves; change the measured steps and the prediction moves.
//
// SYNTHETIC PERTURBATIONS, TESTS ONLY: copies of the training fixture made here have real rows made
// slower (L4 GEMM kernels 2x, all-reduces 3x, published steps 2x, one codebase's steps 1.5x). Nothing is written back to
// tests/data or datasets/; no bundle trained on these rows is ever shipped.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ptp/predict/energy.hpp"
#include "ptp/predict/job_spec.hpp"
#include "ptp/predict/learned/bundle.hpp"
#include "ptp/predict/resolved_job.hpp"
#include "ptp/train/trainer.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/hardware.hpp"
#include "support/run_command.hpp"

using namespace ptp::predict;
using namespace ptp::train;
namespace fs = std::filesystem;

namespace {

// Multiplies `column` of the rows whose `where` cell is `equals` (every row when empty) in one dataset
// CSV by `factor`.
void slow_down(const std::string& path, const std::string& equals, double factor, const std::string& column = "time_s",
               const std::string& where = "gpu") {
  const auto table = CsvTable::read_file(path);
  const std::size_t value_col = table.column(column), where_col = table.column(where);
  std::string out = csv_line(table.header());
  int changed = 0;
  for (const auto& row : table.rows()) {
    auto cells = row.cells;
    const auto value = table.number(row, column);
    if (value && (equals.empty() || cells[where_col] == equals)) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.9g", *value * factor);
      cells[value_col] = buf;
      ++changed;
    }
    out += csv_line(cells);
  }
  REQUIRE(changed > 0);
  std::ofstream(path, std::ios::trunc) << out;
}

std::string train_on(const std::string& data, const std::string& config_dir = std::string(PTP_SOURCE_DIR) + "/configs") {
  TrainOptions o;
  o.data_dir = data;
  o.config_dir = config_dir;
  o.out_dir = ptp::test::temp_dir() + "/bundle";
  o.cross_validate = false;
  o.threads = 1;
  train_bundle(o);
  return o.out_dir;
}

// The fixture, perturbed by `edit` (nothing when empty), trained into a bundle.
template <typename Edit>
LearnedBundle trained(Edit edit) {
  const std::string fixture = std::string(PTP_SOURCE_DIR) + "/tests/data/train-fixture";
  const std::string data = ptp::test::temp_dir() + "/data";
  fs::copy(fixture, data, fs::copy_options::recursive);
  edit(data);
  return LearnedBundle::load(train_on(data));
}
LearnedBundle unperturbed() {
  return trained([](const std::string&) {});
}

ResolvedJob job(const std::string& yaml, const Catalogs& catalogs) {
  return resolve_job(parse_job_spec(YamlReader::load_string(yaml, "job")), catalogs);
}

// The step composed through the bundle's learned levels, before the aggregator.
Prediction composed(const LearnedBundle& b, const ResolvedJob& j) {
  LearnedMemo memo;
  return compose_learned(j, AnalyticalConstants{}, {b.compute.get(), b.communication.get()}, memo).step;
}

}  // namespace

TEST_CASE("the learned compute level answers op times and follows its kernel data", "[learned][levels]") {
  const auto base = unperturbed();
  const auto slow = trained([](const std::string& data) {
    for (const char* f : {"/ops/neusight-gemm.csv", "/ops/neusight-batched_gemm.csv"}) slow_down(data + f, "l4", 2.0);
  });
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

TEST_CASE("the learned communication level answers all-reduces and follows its collective data",
          "[learned][levels]") {
  const auto base = unperturbed();
  const auto slow = trained([](const std::string& data) { slow_down(data + "/collectives.csv", "", 3.0); });
  const Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
  const auto dp8 = job("model: bert-large\nprecision: amp_fp16\nbatch_size: 16\nseq_len: 128\n"
                       "cluster: {gpu: a100-sxm4-80gb, num_gpus: 8}\n",
                       catalogs);
  const auto a = composed(base, dp8), b = composed(slow, dp8);
  CHECK(a.communication_predictor == "learned");
  // Every all-reduce measurement 3x slower: the learned all-reduce time follows (2.8x when written).
  CHECK(b.breakdown.communication > 2.0 * a.breakdown.communication);
  CHECK(a.communication_learned_weight == 1.0);

  // The rows reach 16 ranks on 2 nodes. A 4096-GPU job (512 nodes) gets 2/512 of the correction in
  // log space: the same 3x slowdown moves its all-reduce by 3^(2/512) = 1.004, not 3x; at 32 GPUs
  // (4 nodes) by 3^(1/2).
  REQUIRE(base.communication->reach().max_nodes == 2);
  REQUIRE(base.communication->reach().max_ranks == 16);
  auto dp = [&](int gpus) {
    return job("model: bert-large\nprecision: amp_fp16\nbatch_size: 16\nseq_len: 128\n"
               "cluster: {gpu: a100-sxm4-80gb, num_gpus: " + std::to_string(gpus) + ", inter_node: ib-hdr-200}\n",
               catalogs);
  };
  const auto far_a = composed(base, dp(4096)), far_b = composed(slow, dp(4096));
  CHECK(far_a.communication_learned_weight == Approx(2.0 / 512));
  CHECK(far_b.breakdown.communication / far_a.breakdown.communication < 1.02);
  CHECK(far_b.breakdown.communication / far_a.breakdown.communication > 1.0);
  const auto near_a = composed(base, dp(32)), near_b = composed(slow, dp(32));
  CHECK(near_a.communication_learned_weight == Approx(0.5));
  CHECK(near_b.breakdown.communication / near_a.breakdown.communication > 1.4);  // sqrt of 2.8-3
  CHECK(near_b.breakdown.communication / near_a.breakdown.communication < 2.0);
}

TEST_CASE("the aggregator follows the measured steps it is trained on", "[learned][levels]") {
  const auto base = unperturbed();
  const auto slow = trained([](const std::string& data) { slow_down(data + "/runs.csv", "", 2.0, "step_time_s"); });
  const Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
  const auto j = job("model: resnet50\nprecision: amp_fp16\nbatch_size: 128\n"
                     "cluster: {gpu: a100-sxm4-80gb, num_gpus: 8}\n",
                     catalogs);
  // The lower levels did not change, so the composed step is the same; the correction doubles it.
  CHECK(composed(slow, j).iteration_s == Approx(composed(base, j).iteration_s).epsilon(1e-9));
  // The typical correction (log space) moves by the doubling; the job gets its support's share of it.
  const auto slow_p = slow.predict(j, AnalyticalConstants{}), base_p = base.predict(j, AnalyticalConstants{});
  REQUIRE(slow_p.aggregator_share > 0.2);
  REQUIRE(slow_p.aggregator_share == Approx(base_p.aggregator_share));  // same support: same runs, same job
  const double moved = std::log(slow_p.iteration_s / base_p.iteration_s) / slow_p.aggregator_share;
  CHECK(moved > std::log(1.6));
  CHECK(moved < std::log(2.5));
  // A GPU with no runs in the fixture follows the same data through its spec-sheet features.
  const auto h100 = job("model: resnet50\nprecision: amp_fp16\nbatch_size: 128\n"
                        "cluster: {gpu: h100-sxm5-80gb, num_gpus: 8}\n",
                        catalogs);
  const auto slow_h100 = slow.predict(h100, AnalyticalConstants{}), base_h100 = base.predict(h100, AnalyticalConstants{});
  REQUIRE(slow_h100.aggregator_share > 0.2);
  const double unseen_moved = std::log(slow_h100.iteration_s / base_h100.iteration_s) / slow_h100.aggregator_share;
  CHECK(unseen_moved > std::log(1.4));
  CHECK(unseen_moved < std::log(2.5));
  // The typical level (what an unknown codebase keeps only the fitted part of) moves with the data too.
  CHECK(slow.typical_level - base.typical_level > std::log(1.6));
  CHECK(slow.typical_level - base.typical_level < std::log(2.5));
}

// Copies of one source's runs under a second codebase name, `factor` slower: the two codebases differ in
// nothing the trees see, so only the codebase offsets can tell them apart.
void add_slower_twin(const std::string& path, const std::string& source, const std::string& twin, double factor) {
  const auto table = CsvTable::read_file(path);
  const std::size_t id = table.column("run_id"), src = table.column("source"), step = table.column("step_time_s");
  std::string out = csv_line(table.header());
  int added = 0;
  for (const auto& row : table.rows()) out += csv_line(row.cells);
  for (const auto& row : table.rows()) {
    if (row.cells[src] != source) continue;
    const auto value = table.number(row, "step_time_s");
    if (!value) continue;
    auto cells = row.cells;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", *value * factor);
    cells[step] = buf;
    cells[src] = twin;
    cells[id] = twin + "-" + cells[id];
    out += csv_line(cells);
    ++added;
  }
  REQUIRE(added > 0);
  std::ofstream(path, std::ios::trunc) << out;
}

TEST_CASE("a codebase's offset follows its own runs, and only a job naming it moves with it", "[learned][levels]") {
  // The fixture's runs carry no codebase column, so each source is a codebase. DLE's runs again under
  // the name dle-twin, 1.5x slower: the trees see the same workloads with two answers and fit between
  // them; the offsets separate the two codebases, by log 1.5 shrunk by the runs' count against the
  // prior (31 / (31 + 20)).
  const auto b = trained([](const std::string& data) { add_slower_twin(data + "/runs.csv", "dle", "dle-twin", 1.5); });
  REQUIRE(b.codebase_offsets.count("dle") == 1);
  REQUIRE(b.codebase_offsets.count("dle-twin") == 1);
  const double gap = b.codebase_offsets.at("dle-twin") - b.codebase_offsets.at("dle");
  CHECK(gap > 0.1);
  CHECK(gap < std::log(1.5) + 0.05);
  // The same job, naming each: the twin's answer is slower by the offsets' gap, times the job's share.
  const Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
  auto predict_named = [&](const std::string& codebase) {
    return b.predict(job("model: resnet50\nprecision: amp_fp16\nbatch_size: 128\ncodebase: " + codebase +
                             "\ncluster: {gpu: a100-sxm4-80gb, num_gpus: 8}\n",
                         catalogs),
                     AnalyticalConstants{});
  };
  const auto dle = predict_named("dle"), twin = predict_named("dle-twin");
  CHECK(twin.support.codebase_known);
  CHECK(twin.support.codebase_offset == Approx(b.codebase_offsets.at("dle-twin")));
  CHECK(std::log(twin.iteration_s / dle.iteration_s) > 0.5 * gap * twin.aggregator_share);
  // A codebase the bundle has no runs of gets no offset.
  CHECK_FALSE(predict_named("somebody-else").support.codebase_known);
}

// A copy of configs/ whose every GPU with a TDP ships a default power limit at 0.6 x TDP (or its
// catalog minimum): the fixture's runs then read as measured under that cap.
std::string capped_configs() {
  const std::string dir = ptp::test::temp_dir() + "/configs";
  fs::copy(std::string(PTP_SOURCE_DIR) + "/configs", dir, fs::copy_options::recursive);
  for (const auto& f : fs::directory_iterator(dir + "/gpus")) {
    if (f.path().extension() != ".yaml") continue;
    const GpuSpec g = parse_gpu_spec(f.path().string());
    if (!(g.tdp_w > 0) || g.default_power_limit_w > 0) continue;
    const double cap = std::max(0.6 * g.tdp_w, gpu_power_limit_min_w(g));
    if (cap >= gpu_power_limit_max_w(g)) continue;
    std::ofstream(f.path(), std::ios::app) << "default_power_limit_w: " << cap << "\n";
  }
  return dir;
}

TEST_CASE("runs measured under their GPU's default power cap are learned as the uncapped step", "[learned][levels]") {
  // Same runs, same features; only the catalog says the boards ran capped. The trainer divides each
  // run by its cap's stretch, so the learned correction falls by it (times the job's share), and
  // ptp-predict stretches the answer back. Were the cap ignored in training, the two bundles' uncapped
  // answers would be equal and every capped prediction too slow by the stretch again.
  const std::string fixture = std::string(PTP_SOURCE_DIR) + "/tests/data/train-fixture";
  const std::string data = ptp::test::temp_dir() + "/data";
  fs::copy(fixture, data, fs::copy_options::recursive);
  const std::string plain_dir = std::string(PTP_SOURCE_DIR) + "/configs", capped_dir = capped_configs();
  const auto plain = LearnedBundle::load(train_on(data, plain_dir));
  const auto capped = LearnedBundle::load(train_on(data, capped_dir));
  const Catalogs plain_catalogs(plain_dir), capped_catalogs(capped_dir);
  const std::string spec = "model: bert-large\nprecision: amp_fp16\nbatch_size: 16\nseq_len: 512\n"
                           "cluster: {gpu: a100-sxm4-80gb, num_gpus: 8}\n";
  const auto on_plain = job(spec, plain_catalogs), on_capped = job(spec, capped_catalogs);
  const double stretch = power_limit_stretch(on_capped, composed(capped, on_capped));
  REQUIRE(stretch > 1.1);
  REQUIRE(power_limit_stretch(on_plain, composed(plain, on_plain)) == 1.0);
  // The bundles' own answers, before ptp-predict's stretch: the capped one is lower by the share of it.
  const auto a = plain.predict(on_plain, AnalyticalConstants{}), b = capped.predict(on_capped, AnalyticalConstants{});
  REQUIRE(b.aggregator_share > 0.2);
  const double expected = -b.aggregator_share * std::log(stretch);
  const double moved = std::log(b.iteration_s / a.iteration_s);
  CHECK(moved < 0.5 * expected);
  CHECK(moved > 1.5 * expected);
}
