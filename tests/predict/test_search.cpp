// --search ranks what the ordinary predict path says: every configuration of a space is predicted one
// by one through load_job_spec(--set flags) + Predictor::predict and compared with the search.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "ptp/predict/analytical.hpp"
#include "ptp/predict/learned/bundle.hpp"
#include "ptp/predict/predictor.hpp"
#include "ptp/predict/search.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"
#include <nlohmann/json.hpp>

using namespace ptp::predict;

namespace {

std::string configs() { return std::string(PTP_SOURCE_DIR) + "/configs"; }
std::string job_path(const std::string& name) { return configs() + "/jobs/" + name; }

const Predictor& analytical() {
  static const Predictor p(configs(), "", false);
  return p;
}
// Never destroyed: XGBoost's boosters crash when freed from an exit handler after its own statics.
const Predictor& learned() {
  static const Predictor* p = new Predictor(configs(), default_bundle_dir(configs()), true);
  return *p;
}

struct Brute {
  std::size_t configurations = 0, invalid = 0, no_fit = 0;
  std::vector<std::pair<double, std::string>> fitting;  // objective, configuration text
  std::map<std::string, double> iteration;              // configuration text -> iteration_s
  // The rows a search shows: configurations whose prediction is the same (GPU, GPU count, and
  // objective, step and memory to 6 significant digits) as one, best first by (objective, text).
  std::vector<std::vector<std::pair<double, std::string>>> rows;
};

std::string six(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

// Cross product of the space's axes (virtual_pipeline listed explicitly; sequence_parallel, where it
// follows the tensor degree, only false at TP 1), each configuration predicted from the job file
// with its --set flags, as a user would.
Brute brute_force(const std::string& file, const SearchSpace& space, const Predictor& predictor, SearchObjective o) {
  Brute b;
  std::vector<std::size_t> idx(space.axes.size(), 0);
  for (const auto& a : space.axes) REQUIRE(!a.per_pipeline);
  const JobSpec base = load_job_spec(file);
  std::map<std::string, std::vector<std::pair<double, std::string>>> same;  // equivalence -> configurations
  while (true) {
    std::vector<Override> flags;
    for (std::size_t i = 0; i < idx.size(); ++i) flags.emplace_back(space.axes[i].key, space.axes[i].values[idx[i]]);
    flags.insert(flags.end(), space.fixed.begin(), space.fixed.end());
    int tensor = base.parallelism.tensor;
    for (const auto& [k, v] : flags)
      if (k == "parallelism.tensor") tensor = std::stoi(v);
    bool skip = false;
    for (std::size_t i = 0; i < idx.size(); ++i)
      if (space.axes[i].per_tensor && tensor == 1) {
        if (idx[i] > 0) skip = true;
        flags[i].second = "false";
      }
    std::string text;
    for (const auto& [k, v] : flags) text += (text.empty() ? "" : " ") + std::string("--set ") + k + "=" + v;
    if (!skip) {
      ++b.configurations;
      try {
        const Prediction p = predictor.predict(load_job_spec(file, flags));
        if (!p.memory.fits || p.memory.near_capacity) {  // --search keeps the 5 % headroom
          ++b.no_fit;
        } else {
          const double objective = search_objective_value(p, o);
          b.fitting.emplace_back(objective, text);
          b.iteration[text] = p.iteration_s;
          same[six(objective) + " " + six(p.iteration_s) + " " + six(p.memory.per_gpu_bytes) + " " + p.gpu + " " +
               std::to_string(p.num_gpus)]
              .emplace_back(objective, text);
        }
      } catch (const InputError&) {
        ++b.invalid;
      }
    }
    std::size_t i = idx.size();
    while (i > 0 && ++idx[i - 1] == space.axes[i - 1].values.size()) idx[--i] = 0;
    if (i == 0) break;
  }
  std::sort(b.fitting.begin(), b.fitting.end());
  for (auto& entry : same) {
    std::sort(entry.second.begin(), entry.second.end());
    b.rows.push_back(entry.second);
  }
  std::sort(b.rows.begin(), b.rows.end(), [](const auto& x, const auto& y) { return x.front() < y.front(); });
  return b;
}

std::string flags_of(const std::vector<Override>& settings) {
  std::string text;
  for (const auto& [k, v] : settings) text += (text.empty() ? "" : " ") + std::string("--set ") + k + "=" + v;
  return text;
}

SearchSpace space_for(const std::string& file, const std::string& yaml, const Predictor& predictor) {
  const JobSpec base = load_job_spec(file);
  return parse_search_space(yaml, "space.yaml", base, file, {}, predictor);
}

void check_against_brute_force(const std::string& file, const std::string& yaml, const Predictor& predictor,
                               SearchObjective o, int top) {
  const JobSpec base = load_job_spec(file);
  const SearchSpace space = space_for(file, yaml, predictor);
  const Brute b = brute_force(file, space, predictor, o);
  SearchOptions opt;
  opt.objective = o;
  opt.top = top;
  const SearchResult r = run_search(base, space, opt, predictor, nullptr);
  INFO(file << " " << search_summary(r));
  CHECK(r.configurations == b.configurations);
  CHECK(r.invalid == b.invalid);
  CHECK(r.no_fit == b.no_fit);              // pruning never drops a fitting configuration...
  CHECK(r.ranked == b.fitting.size());      // ...and ranks every one that fits
  REQUIRE(!b.fitting.empty());
  REQUIRE(r.rows.size() == std::min<std::size_t>(top, b.rows.size()));
  // The best row is never worse than any configuration evaluated one by one, and the top rows are
  // the brute force's, in its order (ties by configuration text), each with every configuration
  // of the same prediction listed, in that order.
  for (const auto& [objective, text] : b.fitting) CHECK(r.rows.front().objective <= objective);
  CHECK(r.rows.front().config == b.fitting.front().second);
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    INFO("rank " << i + 1 << ": " << r.rows[i].config);
    const auto& same = b.rows[i];
    CHECK(r.rows[i].config == same.front().second);
    CHECK(r.rows[i].objective == same.front().first);
    CHECK(r.rows[i].prediction.iteration_s == b.iteration.at(r.rows[i].config));
    REQUIRE(r.rows[i].equivalent.size() == same.size() - 1);
    for (std::size_t e = 0; e < r.rows[i].equivalent.size(); ++e) CHECK(flags_of(r.rows[i].equivalent[e]) == same[e + 1].second);
  }
}

}  // namespace

TEST_CASE("search: LLM space equals predicting every configuration one by one", "[search]") {
  const std::string space =
      "precision: [amp_bf16, fp8, fp4]\n"  // fp4 needs sm_100: invalid on H100
      "parallelism.tensor: [1, 2, 4, 3]\n"  // 3 divides neither heads nor the cluster
      "parallelism.pipeline: [1, 2, 4]\n"
      "parallelism.virtual_pipeline: [1, 2]\n"
      "parallelism.context: [1, 2]\n"
      "sharding: [none, fsdp]\n"
      "activation_checkpointing: [none, full]\n"
      "batch_size: [1, 4, 16, 64]\n";
  const std::string job = job_path("gpt2-xl-bf16-32xh100.yaml");
  check_against_brute_force(job, space, analytical(), SearchObjective::time, 10);
  check_against_brute_force(job, space, learned(), SearchObjective::time, 10);
  check_against_brute_force(job, space, analytical(), SearchObjective::cost, 3);
}

TEST_CASE("search: a 70B space with GPU counts and types, where most configurations do not fit", "[search]") {
  const std::string space =
      "cluster.gpu: [h100-sxm5-80gb, a100-sxm4-80gb]\n"
      "cluster.num_gpus: [128, 256]\n"
      "precision: [bf16, fp8]\n"
      "parallelism.tensor: [2, 4, 8]\n"
      "parallelism.pipeline: [2, 4, 8]\n"
      "parallelism.virtual_pipeline: [1, 5]\n"
      "parallelism.context: [1]\n"
      "sharding: [zero1, fsdp]\n"
      "activation_checkpointing: [none, selective, full]\n"
      "batch_size: [1, 2, 4]\n";
  check_against_brute_force(job_path("llama3-70b-fp8-256xh100.yaml"), space, learned(), SearchObjective::gpu_hours, 5);
}

TEST_CASE("search: CNN space (data parallel only)", "[search]") {
  const std::string space =
      "precision: [fp32, tf32, amp_fp16, fp8]\n"
      "sharding: [none, zero2]\n"
      "activation_checkpointing: [none, full]\n"
      "batch_size: [64, 128, 256, 512, 1024, 2048, 4096]\n";
  check_against_brute_force(job_path("resnet50-amp-8xa100.yaml"), space, learned(), SearchObjective::time, 4);
}

TEST_CASE("search: the default space keeps the global batch and covers the job as written", "[search]") {
  for (const std::string name : {"gpt2-xl-bf16-32xh100.yaml", "resnet50-amp-8xa100.yaml"}) {
    INFO(name);
    const std::string file = job_path(name);
    const JobSpec base = load_job_spec(file);
    const SearchSpace space = default_search_space(base, analytical());
    // gpt2-xl states grad_accum, not the global batch: the search writes the global batch out.
    REQUIRE(space.fixed.size() == 1);
    CHECK(space.fixed[0].first == "global_batch_size");
    SearchOptions opt;
    opt.top = 1;
    const SearchResult r = run_search(base, space, opt, analytical(), nullptr);
    CHECK(r.configurations == r.invalid + r.no_fit + r.ranked);
    REQUIRE(r.rows.size() == 1);
    const Prediction job = analytical().predict(base);
    CHECK(r.rows[0].objective <= search_objective_value(job, SearchObjective::time));
    // Every row trains the same global batch as the job.
    const Prediction best = analytical().predict(load_job_spec(file, r.rows[0].settings));
    CHECK(best.batch_size * best.grad_accum * best.layout.data == job.batch_size * job.grad_accum * job.layout.data);
    CHECK(best.iteration_s == r.rows[0].prediction.iteration_s);
  }
}

TEST_CASE("search: default precisions are those the GPU runs", "[search]") {
  const std::string file = job_path("resnet50-amp-8xa100.yaml");
  const SearchSpace space = default_search_space(load_job_spec(file), analytical());
  const auto& p = space.axes.front();
  REQUIRE(p.key == "precision");
  CHECK(p.values == std::vector<std::string>{"fp32", "tf32", "fp16", "bf16", "amp_fp16", "amp_bf16"});  // no fp8/fp4 on A100
  for (const auto& a : space.axes) CHECK(a.key.rfind("parallelism.", 0) == std::string::npos);  // a CNN: no layouts
}

TEST_CASE("search: space files are validated like job specs", "[search]") {
  const std::string file = job_path("gpt2-xl-bf16-32xh100.yaml");
  const JobSpec base = load_job_spec(file);
  auto refused = [&](const std::string& yaml, const std::string& expected) {
    INFO(yaml);
    try {
      parse_search_space(yaml, "space.yaml", base, file, {}, analytical());
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK_THAT(e.what(), Catch::StartsWith("space.yaml:"));
      CHECK_THAT(e.what(), Catch::Contains(expected));
    }
  };
  refused("precision: [bf16, fp9]\n", "space.yaml:1:19: precision[1]: value 'fp9'");
  refused("precison: [bf16]\n", "precison: unknown key (did you mean: precision");
  refused("precision: bf16\n", "space.yaml:1:12: precision: expected a non-empty list");
  refused("precision: []\n", "expected a non-empty list");
  refused("parallelism.tensor: [2, 0]\n", "parallelism.tensor[1]: value '0'");
  refused("parallelism.tensor: [2, 2]\n", "space.yaml:1:25: parallelism.tensor[1]: value '2' appears twice");
  refused("cluster.gpu: [h100-sxm5-80gb, h900]\n", "unknown GPU 'h900'");
  refused("sharding: [[zero1]]\n", "expected a scalar value");
  refused("- precision\n", "expected a mapping");
  refused("batch_tokens: [1024]\n", "give exactly one of batch_size and batch_tokens");
}

TEST_CASE("search: one loaded bundle serves 1, 2, 3 and 4 threads with identical rows and counts", "[search]") {
  const std::string file = job_path("gpt2-xl-bf16-32xh100.yaml");
  const JobSpec base = load_job_spec(file);
  const SearchSpace space = space_for(file,
                                      "precision: [amp_bf16, fp8]\n"
                                      "parallelism.tensor: [1, 2, 4]\n"
                                      "parallelism.pipeline: [1, 2, 4]\n"
                                      "sharding: [none, zero1, fsdp]\n"
                                      "batch_size: [2, 4, 8, 16]\n",
                                      learned());
  SearchOptions opt;
  opt.top = 25;
  // The threads share the caller's Predictor: no search loads a bundle of its own.
  const std::size_t loads = LearnedBundle::loads();
  REQUIRE(loads >= 1);  // learned()'s
  const SearchResult one = run_search(base, space, opt, learned(), nullptr);
  CHECK(LearnedBundle::loads() == loads);
  for (int threads : {2, 3, 4}) {
    opt.threads = threads;
    const SearchResult many = run_search(base, space, opt, learned(), nullptr);
    INFO(threads << " threads");
    CHECK(LearnedBundle::loads() == loads);
    for (const char* format : {"csv", "json"}) CHECK(render_search(many, format) == render_search(one, format));
    CHECK(many.configurations == one.configurations);
    CHECK(many.invalid == one.invalid);
    CHECK(many.no_fit == one.no_fit);
    CHECK(many.ranked == one.ranked);
    REQUIRE(many.rows.size() == one.rows.size());
    for (std::size_t i = 0; i < one.rows.size(); ++i) {
      CHECK(many.rows[i].config == one.rows[i].config);
      CHECK(many.rows[i].objective == one.rows[i].objective);
      CHECK(many.rows[i].prediction.iteration_s == one.rows[i].prediction.iteration_s);
    }
  }
}

TEST_CASE("search: threads share one Predictor's catalogs, GPUs loaded as the walk meets them", "[search]") {
  // A fresh Predictor has read one GPU file (the job's); the space is built here, not parsed, so the
  // other GPUs are first looked up by the search's threads at once (Catalog holds a lock).
  const std::string file = job_path("gpt2-xl-bf16-32xh100.yaml");
  const JobSpec base = load_job_spec(file);
  SearchSpace space;
  space.axes = {{"cluster.gpu", {"h100-sxm5-80gb", "a100-sxm4-80gb", "a100-sxm4-40gb", "l40s", "h200-sxm-141gb"}, false},
                {"precision", {"amp_bf16", "amp_fp16"}, false},
                {"batch_size", {"1", "2", "4", "8"}, false}};
  SearchOptions opt;
  opt.top = 40;
  auto search = [&](int threads) {
    const Predictor fresh(configs(), "", false);
    opt.threads = threads;
    return run_search(base, space, opt, fresh, nullptr);
  };
  const SearchResult one = search(1), four = search(4);
  std::set<std::string> gpus;
  for (const auto& row : four.rows) gpus.insert(row.settings.front().second);
  CHECK(four.configurations == 40);
  CHECK(gpus.size() >= 3);
  CHECK(render_search(four, "csv") == render_search(one, "csv"));
}

TEST_CASE("search: predictions through a shared workload's memo equal fresh ones, in any order", "[search]") {
  // The search resolves configurations against one shared workload whose memo keeps recent
  // partitions and op-time tables; revisiting layouts after they were evicted, and alternating
  // learned and analytical compositions, must give bit-identical predictions.
  const std::string file = job_path("llama3-70b-fp8-256xh100.yaml");
  for (const Predictor* predictor : {&analytical(), &learned()}) {
    const JobSpec base = load_job_spec(file);
    auto shared = share_workload(resolve_job(base, predictor->catalogs()).workload);
    int checked = 0;
    for (int round = 0; round < 2; ++round)
      for (const std::string tp : {"8", "4", "2"})
        for (const std::string pp : {"4", "1", "8", "2", "5", "10"})
          for (const std::string recompute : {"full", "selective", "none"}) {
            const std::vector<Override> flags{{"parallelism.tensor", tp}, {"parallelism.pipeline", pp},
                                              {"activation_checkpointing", recompute},
                                              {"precision", round ? "bf16" : "fp8"}};
            const JobSpec job = load_job_spec(file, flags);
            INFO("tp " << tp << " pp " << pp << " " << recompute << " round " << round);
            Prediction fresh, memoised;
            try {
              fresh = predictor->predict(job);
            } catch (const InputError&) {
              CHECK_THROWS_AS(resolve_job(job, predictor->catalogs(), shared), InputError);
              continue;
            }
            const ResolvedJob r = resolve_job(job, predictor->catalogs(), shared);
            CHECK(estimate_memory(r, predictor->constants()).per_gpu_bytes == fresh.memory.per_gpu_bytes);
            memoised = predictor->predict(r);
            CHECK(memoised.iteration_s == fresh.iteration_s);
            CHECK(memoised.breakdown.forward == fresh.breakdown.forward);
            CHECK(memoised.breakdown.recompute == fresh.breakdown.recompute);
            CHECK(memoised.memory.per_gpu_bytes == fresh.memory.per_gpu_bytes);
            CHECK(memoised.layers.size() == fresh.layers.size());
            ++checked;
          }
    CHECK(checked > 20);
  }
}

TEST_CASE("search: sequence_parallel is searched wherever TP is above 1 and only false at TP 1", "[search]") {
  const std::string file = job_path("gpt2-xl-bf16-32xh100.yaml");
  const JobSpec base = load_job_spec(file);
  const SearchSpace defaults = default_search_space(base, analytical());
  const auto sp = std::find_if(defaults.axes.begin(), defaults.axes.end(),
                               [](const SearchAxis& a) { return a.key == "sequence_parallel"; });
  REQUIRE(sp != defaults.axes.end());
  CHECK(sp->per_tensor);
  CHECK(sp->values == std::vector<std::string>{"false", "true"});
  // After the tensor axis it follows (the walk fixes it once TP is known).
  const auto tp = std::find_if(defaults.axes.begin(), defaults.axes.end(),
                               [](const SearchAxis& a) { return a.key == "parallelism.tensor"; });
  CHECK(tp < sp);
  // A CNN has no tensor parallelism: no sequence_parallel axis either.
  for (const auto& a : default_search_space(load_job_spec(job_path("resnet50-amp-8xa100.yaml")), analytical()).axes)
    CHECK(a.key != "sequence_parallel");

  // GPT-3 2.7B (32 heads; gpt2-xl's 25 take no TP 2 or 4) at TP 1, 2, 4 with the rest pinned: 1 + 2 + 2
  // configurations, not 3 x 2, and all of them fit.
  const std::string gpt3 = (std::filesystem::temp_directory_path() / "ptp-search-sp-job.yaml").string();
  std::ofstream(gpt3) << "model: gpt3-2.7b\nprecision: amp_bf16\nbatch_size: 2\nseq_len: 2048\nglobal_batch_size: 128\n"
                         "cluster: {gpu: h100-sxm5-80gb, num_gpus: 16, gpus_per_node: 8}\nrun: {steps: 500}\n";
  const std::string yaml = "precision: [amp_bf16]\nparallelism.tensor: [1, 2, 4]\nparallelism.pipeline: [1]\n"
                           "parallelism.virtual_pipeline: [1]\nparallelism.context: [1]\nsharding: [none]\n"
                           "activation_checkpointing: [none]\nbatch_size: [2]\n";
  const SearchSpace space = space_for(gpt3, yaml, analytical());
  SearchOptions opt;
  opt.top = 10;
  const SearchResult r = run_search(load_job_spec(gpt3), space, opt, analytical(), nullptr);
  CHECK(r.configurations == 5);
  CHECK(r.ranked == 5);
  std::size_t with_sp = 0, at_tp1 = 0;
  for (const auto& row : r.rows)
    for (const auto& settings : [&] {
           auto all = row.equivalent;
           all.push_back(row.settings);
           return all;
         }()) {
      std::map<std::string, std::string> v(settings.begin(), settings.end());
      if (v.at("parallelism.tensor") == "1") {
        ++at_tp1;
        CHECK(v.at("sequence_parallel") == "false");
      } else if (v.at("sequence_parallel") == "true") {
        ++with_sp;
      }
    }
  CHECK(at_tp1 == 1);
  CHECK(with_sp == 2);  // TP 2 and TP 4, each with sequence parallelism
  // And the search ranks them as predicting each one by one does.
  check_against_brute_force(gpt3, yaml, analytical(), SearchObjective::time, 10);
  check_against_brute_force(gpt3, yaml, learned(), SearchObjective::time, 10);
  // With the default tensor axis too (TP 1, 2, 4, 8 and CP left to the default), on the learned path.
  check_against_brute_force(gpt3, "precision: [amp_bf16]\nparallelism.pipeline: [1, 2]\nparallelism.virtual_pipeline: [1]\n"
                                  "sharding: [zero1, zero2]\nactivation_checkpointing: [none, full]\nbatch_size: [1, 2]\n",
                            learned(), SearchObjective::cost, 8);
  std::filesystem::remove(gpt3);
}

TEST_CASE("search: configurations with the same prediction are one row that lists the others", "[search]") {
  // Llama 3 70B at its NeMo layout: zero1 and zero2 shard the same state under Megatron's
  // distributed optimizer and predict the same step and memory; fsdp does not.
  const std::string file = job_path("llama3-70b-fp8-256xh100.yaml");
  const JobSpec base = load_job_spec(file);
  const std::string yaml = "precision: [fp8]\nparallelism.tensor: [4]\nparallelism.pipeline: [4]\n"
                           "parallelism.virtual_pipeline: [4, 5]\nparallelism.context: [2]\nsequence_parallel: [true]\n"
                           "sharding: [zero1, zero2, fsdp]\nactivation_checkpointing: [none]\nbatch_size: [1]\n";
  const SearchSpace space = space_for(file, yaml, learned());
  SearchOptions opt;
  opt.top = 10;
  const SearchResult r = run_search(base, space, opt, learned(), nullptr);
  CHECK(r.configurations == 6);
  CHECK(r.ranked == 6);
  REQUIRE(r.rows.size() == 4);  // per VP: fsdp, and zero1|zero2
  std::size_t collapsed = 0;
  for (const auto& row : r.rows) {
    std::map<std::string, std::string> v(row.settings.begin(), row.settings.end());
    if (v.at("sharding") == "fsdp") {
      CHECK(row.equivalent.empty());
      continue;
    }
    ++collapsed;
    CHECK(v.at("sharding") == "zero1");  // the best by (objective, configuration text)
    REQUIRE(row.equivalent.size() == 1);
    std::map<std::string, std::string> e(row.equivalent[0].begin(), row.equivalent[0].end());
    CHECK(e.at("sharding") == "zero2");
    CHECK(e.at("parallelism.virtual_pipeline") == v.at("parallelism.virtual_pipeline"));
    // The listed configuration, predicted on its own, is the row's prediction.
    const Prediction alone = learned().predict(load_job_spec(file, row.equivalent[0]));
    CHECK(search_equivalence_key(alone, search_objective_value(alone, SearchObjective::time)) ==
          search_equivalence_key(row.prediction, row.objective));
  }
  CHECK(collapsed == 2);
  // Every format says so: the table one cell, json/csv the alternatives' flags.
  CHECK_THAT(render_search(r, "table"), Catch::Contains("zero1|zero2") && Catch::Contains("--set sharding=zero2"));
  const auto as_json = nlohmann::json::parse(render_search(r, "json"));  // kept alive for the loop
  for (const auto& row : as_json["rows"]) {
    const bool zero1 = row["changes"].get<std::string>().find("sharding") == std::string::npos;  // the job's zero1
    CHECK(row["equivalent"] == (zero1 ? nlohmann::json::array({"--set sharding=zero2"}) : nlohmann::json::array()));
  }
  CHECK_THAT(render_search(r, "csv"), Catch::Contains(",--set sharding=zero2,"));
  // The same rows, collapsed the same way, for any thread count.
  for (int threads : {2, 3, 5}) {
    opt.threads = threads;
    CHECK(render_search(run_search(base, space, opt, learned(), nullptr), "json") == render_search(r, "json"));
  }
  // With --top 1 the best group still lists all of its members.
  opt.threads = 3, opt.top = 1;
  const SearchResult one = run_search(base, space, opt, learned(), nullptr);
  REQUIRE(one.rows.size() == 1);
  CHECK(one.rows[0].config == r.rows[0].config);
  CHECK(one.rows[0].equivalent == r.rows[0].equivalent);
}

TEST_CASE("search: rows within the best row's noise are ties and the noise is a tenth of its band", "[search]") {
  // The report's case: rows under 1 % apart in a +-20 % band.
  auto result = [](std::vector<double> objectives, double low, double high, SearchObjective o) {
    SearchResult r;
    r.objective = o;
    for (double v : objectives) {
      SearchRow row;
      row.objective = v;
      row.prediction.iteration_s = 1, row.prediction.iteration_low_s = low, row.prediction.iteration_high_s = high;
      row.prediction.energy.valid = true;
      row.prediction.energy.band_low_factor = 0.5, row.prediction.energy.band_high_factor = 2;
      r.rows.push_back(row);
    }
    mark_search_ties(r);
    return r;
  };
  const SearchResult r = result({100, 100.8, 101.9, 103}, 0.8, 1.2, SearchObjective::time);
  CHECK(r.tie_margin == Approx(std::expm1(0.05 * std::log(1.2 / 0.8))));  // 2.05 %
  CHECK(r.tie_band_low == 0.8);
  CHECK(r.tie_band_high == 1.2);
  CHECK(r.rows[0].tie);
  CHECK(r.rows[1].tie);
  CHECK(r.rows[2].tie);
  CHECK_FALSE(r.rows[3].tie);
  CHECK_THAT(render_search(r, "table"), Catch::Contains("ties: = marks a rank within 2.0 % of the best") &&
                                            Catch::Contains("-20 % .. +20 %") && Catch::Contains("  1=  ") &&
                                            Catch::Contains("  4   "));
  // No other row inside the noise: nothing is marked, not even the best.
  const SearchResult apart = result({100, 103, 110}, 0.8, 1.2, SearchObjective::cost);
  for (const auto& row : apart.rows) CHECK_FALSE(row.tie);
  // Energy and carbon rank on the energy band.
  const SearchResult energy = result({100, 103, 110}, 0.8, 1.2, SearchObjective::energy);
  CHECK(energy.tie_margin == Approx(std::expm1(0.05 * std::log(4.0))));  // 7.2 %
  CHECK(energy.rows[1].tie);
  CHECK_FALSE(energy.rows[2].tie);

  // A real search: the margin is the best row's own band, and exactly the rows inside it are marked.
  const std::string file = job_path("gpt2-xl-bf16-32xh100.yaml");
  const JobSpec base = load_job_spec(file);
  const SearchSpace space = space_for(file, "precision: [amp_bf16, fp8]\nparallelism.pipeline: [1]\nbatch_size: [4, 8]\n",
                                      learned());
  SearchOptions opt;
  opt.top = 20;
  const SearchResult s = run_search(base, space, opt, learned(), nullptr);
  REQUIRE(s.rows.size() > 3);
  const Prediction& best = s.rows.front().prediction;
  CHECK(s.tie_margin == Approx(std::expm1(0.05 * std::log(best.iteration_high_s / best.iteration_low_s))));
  CHECK(s.tie_margin > 0);
  bool any = false;
  for (std::size_t i = 1; i < s.rows.size(); ++i) {
    CHECK(s.rows[i].tie == (s.rows[i].objective <= s.rows[0].objective * (1 + s.tie_margin)));
    any = any || s.rows[i].tie;
  }
  CHECK(s.rows[0].tie == any);
  const auto j = nlohmann::json::parse(render_search(s, "json"));
  CHECK(j["search"]["tie_margin"].get<double>() == Approx(s.tie_margin));
  CHECK_THAT(j["search"]["tie_basis"].get<std::string>(), Catch::Contains("a tenth of the best row's 80 % step-time band"));
  for (std::size_t i = 0; i < s.rows.size(); ++i) CHECK(j["rows"][i]["tie"] == s.rows[i].tie);
}
