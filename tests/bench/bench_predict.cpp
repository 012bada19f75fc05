// Per-job prediction cost: one in-process prediction (analytical and learned), a 10,000-config
// sweep, --search over a 10,000-configuration space and over the 390,000-configuration default
// space of Llama-3-70B on 1,024 H100s, and the fixed start-up cost (catalogs, bundle) a CLI call
// pays once.
#include <benchmark/benchmark.h>

#include "ptp/predict/predict_session.hpp"
#include "ptp/predict/predictor.hpp"
#include "ptp/predict/search.hpp"

namespace {
const std::string kConfigs = std::string(PTP_SOURCE_DIR) + "/configs";
const std::string kBundle = std::string(PTP_SOURCE_DIR) + "/models/default";

ptp::predict::JobSpec gpt2_xl() {
  return ptp::predict::parse_job_spec(ptp::vocab::YamlReader::load_string(
      "model: gpt2-xl\nprecision: amp_bf16\nbatch_size: 8\nseq_len: 1024\ncluster: {gpu: a100-sxm4-80gb, num_gpus: 64}\n",
      "bench.yaml"));
}

void BM_StartupAnalytical(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(ptp::predict::Predictor(kConfigs, "", false));
}
BENCHMARK(BM_StartupAnalytical)->Unit(benchmark::kMillisecond);

void BM_StartupLearned(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(ptp::predict::Predictor(kConfigs, kBundle, true));
}
BENCHMARK(BM_StartupLearned)->Unit(benchmark::kMillisecond);

void BM_Gpt2XlAnalytical(benchmark::State& state) {
  const ptp::predict::Predictor p(kConfigs, "", false);
  const auto job = gpt2_xl();
  for (auto _ : state) benchmark::DoNotOptimize(p.predict(job));
}
BENCHMARK(BM_Gpt2XlAnalytical)->Unit(benchmark::kMicrosecond);

// With the caller's memo kept across calls (as a sweep keeps it): the learned levels' answers are warm.
void BM_Gpt2XlLearned(benchmark::State& state) {
  const ptp::predict::Predictor p(kConfigs, kBundle, true);
  const auto job = gpt2_xl();
  ptp::predict::LearnedMemo memo;
  for (auto _ : state) benchmark::DoNotOptimize(p.predict(job, memo));
}
BENCHMARK(BM_Gpt2XlLearned)->Unit(benchmark::kMicrosecond);

// A fresh memo per call, as one ptp-predict call has: every op's features and trees are evaluated.
void BM_Gpt2XlLearnedCold(benchmark::State& state) {
  const ptp::predict::Predictor p(kConfigs, kBundle, true);
  const auto job = gpt2_xl();
  for (auto _ : state) benchmark::DoNotOptimize(p.predict(job));
}
BENCHMARK(BM_Gpt2XlLearnedCold)->Unit(benchmark::kMicrosecond);

// 10,000 configurations: 4 precisions x 5 GPUs x 10 GPU counts x 50 batch sizes of ResNet-50.
void BM_Sweep10k(benchmark::State& state) {
  const bool learned = state.range(0) != 0;
  const ptp::predict::Predictor p(kConfigs, learned ? kBundle : "", learned);
  const char* precisions[] = {"fp32", "tf32", "amp_fp16", "amp_bf16"};
  const char* gpus[] = {"a100-sxm4-80gb", "a100-sxm4-40gb", "h100-sxm5-80gb", "l40s", "rtx-a6000"};
  std::vector<ptp::predict::JobSpec> jobs;
  for (const char* prec : precisions)
    for (const char* gpu : gpus)
      for (int gpus_n = 8; gpus_n <= 80; gpus_n += 8)
        for (int batch = 16; batch <= 16 * 50; batch += 16) {
          const std::string text = std::string("model: resnet50\nprecision: ") + prec + "\nbatch_size: " +
                                   std::to_string(batch) + "\ncluster: {gpu: " + gpu + ", num_gpus: " +
                                   std::to_string(gpus_n) + ", gpus_per_node: 8}\n";
          jobs.push_back(ptp::predict::parse_job_spec(ptp::vocab::YamlReader::load_string(text, "sweep.yaml")));
        }
  for (auto _ : state) {
    ptp::predict::LearnedMemo memo;  // one per sweep, as ptp-predict --sweep keeps it
    for (const auto& j : jobs) benchmark::DoNotOptimize(p.predict(j, memo));
  }
  state.counters["configs"] = static_cast<double>(jobs.size());
}
BENCHMARK(BM_Sweep10k)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(1);

void run_search_bench(benchmark::State& state, const ptp::predict::JobSpec& base, const ptp::predict::SearchSpace& space,
                      const ptp::predict::Predictor& p, int threads = 1) {
  ptp::predict::SearchOptions opt;
  opt.top = 3;
  opt.threads = threads;
  ptp::predict::SearchResult r;
  for (auto _ : state) {
    r = ptp::predict::run_search(base, space, opt, p, nullptr);
    benchmark::DoNotOptimize(r.rows.data());
  }
  state.counters["configs"] = static_cast<double>(r.configurations);
  state.counters["invalid"] = static_cast<double>(r.invalid);
  state.counters["no_fit"] = static_cast<double>(r.no_fit);
  state.counters["ranked"] = static_cast<double>(r.ranked);
}

// --search over 10,368 configurations of ResNet-50 (6 precisions x 4 shardings x 3 recomputation
// policies x 12 micro-batches x 12 GPU counts, no gradient accumulation: the global batch follows),
// learned: the sweep above as a search.
void BM_Search10k(benchmark::State& state) {
  const ptp::predict::Predictor p(kConfigs, kBundle, true);
  const std::string file = kConfigs + "/jobs/resnet50-amp-8xa100.yaml";
  const auto base = ptp::predict::load_job_spec(file);
  const auto space = ptp::predict::parse_search_space(
      "batch_size: [16, 32, 48, 64, 96, 128, 160, 192, 224, 256, 320, 384]\n"
      "cluster.num_gpus: [8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96]\ngrad_accum: [1]\n",
      "bench-space.yaml", base, file, {}, p);
  run_search_bench(state, base, space, p);
}
BENCHMARK(BM_Search10k)->Unit(benchmark::kMillisecond)->Iterations(1);

// The default space of Llama-3-70B FP8 on 1,024 H100s (682,080 configurations with sequence parallelism
// searched wherever TP > 1; 389,760 before), learned: what
// `ptp-predict configs/jobs/llama3-70b-fp8-256xh100.yaml --set cluster.num_gpus=1024 --search` walks.
void BM_Search70b1024(benchmark::State& state) {
  const ptp::predict::Predictor p(kConfigs, kBundle, true);
  const std::string file = kConfigs + "/jobs/llama3-70b-fp8-256xh100.yaml";
  const auto base = ptp::predict::load_job_spec(file, {{"cluster.num_gpus", "1024"}});
  run_search_bench(state, base, ptp::predict::default_search_space(base, p), p, static_cast<int>(state.range(0)));
}
// Argument: threads (they share the one Predictor).
BENCHMARK(BM_Search70b1024)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
}  // namespace

BENCHMARK_MAIN();
