// The search loop: every configuration of the space is edited into a copy of the parsed job, resolved
// (reusing the workload of its micro-batch), checked for memory, and only then timed. Rows are kept
// best-first by (objective, configuration text), so the ranking is the same in any enumeration order.
#include <algorithm>
#include <cmath>
#include <exception>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <tuple>
#include <utility>

#include "../analytical/parallelism.hpp"
#include "ptp/predict/analytical.hpp"
#include "ptp/predict/search.hpp"
#include "ptp/vocab/error.hpp"
#include "search_fields.hpp"

namespace ptp {

double search_objective_value(const Prediction& p, SearchObjective o) {
  const bool run = p.total_steps > 0;
  switch (o) {
    case SearchObjective::cost:
      if (!run) throw InputError("--objective cost needs run: (steps | epochs + dataset_size | tokens) in the job");
      if (!p.has_cost)
        throw InputError("--objective cost: no price for " + p.gpu +
                         " (its catalog file has no price:); set cost.usd_per_gpu_hour in the job");
      return p.cost_usd;
    case SearchObjective::gpu_hours:
      // Without a run, GPU-seconds per sample rank the same way.
      return run ? p.gpu_hours : p.num_gpus / p.samples_per_second;
    case SearchObjective::energy:
      // Facility kWh of the run; without a run, facility joules per sample rank the same way.
      if (!p.energy.valid) throw InputError("--objective energy needs a GPU with tdp_w in the catalog");
      return run ? p.energy.facility_kwh : p.energy.facility_j_per_step / (p.samples_per_second * p.iteration_s);
    case SearchObjective::carbon:
      if (!p.energy.valid || !run || !p.energy.has_carbon)
        throw InputError("--objective carbon needs run: and energy.grid_gco2_per_kwh in the job");
      return p.energy.gco2e;
    case SearchObjective::time:
      break;
  }
  return run ? p.total_seconds : 1 / p.samples_per_second;
}

namespace {

// Configurations one search may walk. The default space of a 1,024-GPU LLM is ~10^5; beyond 10^7 a
// space file is a mistake (or an attack) that would run for hours.
constexpr double kMaxSearchConfigurations = 1e7;

// The job on one GPU with no parallelism and no global batch: what its workload is built under.
JobSpec single_gpu(const JobSpec& job) {
  JobSpec one = job;
  one.parallelism = ParallelismSpec{};
  one.global_batch_size.reset();
  one.cluster.num_gpus = 1;
  one.cluster.gpus_per_node = 0;
  return one;
}

// The workload is built once per (model, micro-batch, seq_len) the search meets and shared by every
// configuration resolved with it (with its memo of partitions: step_memo.hpp).
class WorkloadCache {
 public:
  explicit WorkloadCache(const Predictor& p) : predictor_(p) {}
  // nullopt when the configuration breaks a rule of the job spec; InputError when it breaks one the
  // workload of its micro-batch is built under (its precision, the model itself), and then nothing
  // is kept.
  std::optional<ResolvedJob> resolve(const JobSpec& job) {
    const auto key = std::make_tuple(job.model, job.batch_size, job.batch_tokens, job.seq_len);
    auto it = built_.find(key);
    if (it == built_.end()) {
      // The workload depends on the model, micro-batch, seq_len, fine-tuning and sequence layout,
      // never on the layout: it is built under one GPU with no model parallelism, so that the layouts
      // the search refuses (most of them) do not each build it again.
      ResolvedJob one = resolve_job(single_gpu(job), predictor_.catalogs());
      it = built_.emplace(key, share_workload(std::move(one.workload), *one.model)).first;
    }
    return resolve_shared_job(job, predictor_.catalogs(), it->second, nullptr);
  }

 private:
  const Predictor& predictor_;
  std::map<std::tuple<std::string, double, double, int>, std::shared_ptr<const SharedWorkload>> built_;
};

std::string config_text(const std::vector<Override>& settings) {
  std::string out;
  for (const auto& [k, v] : settings) out += (out.empty() ? "" : " ") + std::string("--set ") + k + "=" + v;
  return out;
}

bool better(const SearchRow& a, const SearchRow& b) {
  if (a.objective != b.objective) return a.objective < b.objective;
  return a.config < b.config;
}

// Walks the cross product of the axes (virtual_pipeline's values follow the pipeline depth).
class Enumerator {
 public:
  Enumerator(const SearchSpace& s, int blocks) : space_(s), blocks_(blocks), order_(s.axes.size()) {
    for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = i;
    std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
      return search_field(s.axes[a].key).nesting < search_field(s.axes[b].key).nesting;
    });
  }

  // Number of configurations, for the limit and the counts.
  double count(const JobSpec& base) const {
    double n = 1;
    const SearchAxis* pipeline = nullptr;
    for (const auto& a : space_.axes)
      if (a.key == "parallelism.pipeline") pipeline = &a;
    for (const auto& a : space_.axes) {
      if (a.key == "parallelism.pipeline" || !a.per_pipeline) {
        if (a.key == "parallelism.pipeline" && has_per_pipeline()) continue;
        n *= static_cast<double>(a.values.size());
        continue;
      }
      // pipeline x virtual_pipeline pairs
      double pairs = 0;
      JobSpec j = base;
      const std::vector<std::string> pps =
          pipeline ? pipeline->values : std::vector<std::string>{std::to_string(base.parallelism.pipeline)};
      for (const auto& pp : pps) {
        search_field("parallelism.pipeline").set(j, pp);
        pairs += static_cast<double>(virtual_pipeline_values(j, blocks_).size());
      }
      n *= pairs;
    }
    return n;
  }

  // Calls f(settings) for every configuration.
  template <class F>
  void each(const JobSpec& base, F&& f) {
    // One value per axis, then the fixed overrides: values are assigned in place as the walk moves,
    // so a configuration costs no copy of its flags.
    std::vector<Override> settings(space_.axes.size());
    settings.insert(settings.end(), space_.fixed.begin(), space_.fixed.end());
    JobSpec job = base;
    for (const auto& ov : space_.fixed) search_field(ov.first).set(job, ov.second);
    walk(0, job, settings, f);
  }

 private:
  bool has_per_pipeline() const {
    return std::any_of(space_.axes.begin(), space_.axes.end(), [](const SearchAxis& a) { return a.per_pipeline; });
  }

  template <class F>
  void walk(std::size_t depth, JobSpec& job, std::vector<Override>& settings, F& f) {
    if (depth == order_.size()) {
      f(std::as_const(job), std::as_const(settings));
      return;
    }
    const std::size_t i = order_[depth];  // settings stay in axis order
    const auto& axis = space_.axes[i];
    const auto& field = search_field(axis.key);
    const auto values = axis.per_pipeline ? virtual_pipeline_values(job, blocks_) : axis.values;
    const JobSpec saved = job;
    settings[i].first = axis.key;
    for (const auto& v : values) {
      field.set(job, v);
      settings[i].second = v;
      walk(depth + 1, job, settings, f);
    }
    job = saved;
  }

  const SearchSpace& space_;
  int blocks_;
  std::vector<std::size_t> order_;  // axis indices, outermost first
};

// The row's flags relative to the job file: `base` already carries the user's --set flags, so a
// searched value equal to base's is left out of `changes` only when no user flag set that key.
void add_reproduction(SearchRow& row, const JobSpec& base, const std::vector<Override>& user) {
  auto user_set = [&](const std::string& key) {
    return std::any_of(user.begin(), user.end(), [&](const Override& o) { return o.first == key; });
  };
  auto searched = [&](const std::string& key) {
    return std::any_of(row.settings.begin(), row.settings.end(), [&](const Override& o) { return o.first == key; });
  };
  std::vector<Override> kept_user, changed;
  for (const auto& ov : user)
    if (!searched(ov.first)) kept_user.push_back(ov);
  for (const auto& ov : row.settings)
    if (user_set(ov.first) || search_field(ov.first).get(base) != ov.second) changed.push_back(ov);
  changed.insert(changed.begin(), kept_user.begin(), kept_user.end());
  row.changes = config_text(changed);
  row.settings.insert(row.settings.end(), kept_user.begin(), kept_user.end());
}

}  // namespace

namespace {

// One thread's share: every `stride`-th configuration from `first`, its counts and its best rows.
struct Share {
  std::size_t configurations = 0, invalid = 0, no_fit = 0, ranked = 0, default_priced = 0;
  std::set<std::string> default_priced_gpus;
  std::vector<SearchRow> best;  // sorted best-first, at most `top`
};

void keep(std::vector<SearchRow>& best, SearchRow row, std::size_t top) {
  if (best.size() == top && !better(row, best.back())) return;
  best.insert(std::upper_bound(best.begin(), best.end(), row, better), std::move(row));
  if (best.size() > top) best.pop_back();
}

Share search_share(const JobSpec& base, const SearchSpace& space, const SearchOptions& options, int blocks,
                   const Predictor& predictor, const Calibrator* calibration, std::size_t first, std::size_t stride) {
  Share share;
  WorkloadCache cache(predictor);  // this share's: workloads and their step memos
  LearnedMemo memo;                // this share's: what the learned levels answered
  Enumerator walk(space, blocks);
  const auto top = static_cast<std::size_t>(options.top);
  std::size_t index = 0;
  walk.each(base, [&](const JobSpec& job, const std::vector<Override>& settings) {
    if (index++ % stride != first) return;
    ++share.configurations;
    std::optional<ResolvedJob> resolved;
    try {
      resolved = cache.resolve(job);
    } catch (const InputError&) {
      ++share.invalid;
      return;
    }
    if (!resolved) {
      ++share.invalid;
      return;
    }
    const ResolvedJob& r = *resolved;
    // The prediction's own memory estimate (same function, same constants): no timing for what cannot
    // fit. A recommendation keeps the headroom a single prediction only warns about.
    if (const auto m = estimate_memory(r, predictor.constants()); !m.fits || m.near_capacity) {
      ++share.no_fit;
      return;
    }
    SearchRow row;
    row.prediction = predictor.predict(r, memo);
    if (!row.prediction.memory.fits || row.prediction.memory.near_capacity) {  // as the estimate above
      ++share.no_fit;
      return;
    }
    ++share.ranked;
    if (row.prediction.price.source == "default") {
      ++share.default_priced;
      share.default_priced_gpus.insert(row.prediction.gpu);
    }
    if (calibration) calibration->apply(row.prediction);
    row.objective = search_objective_value(row.prediction, options.objective);
    row.settings = settings;
    row.config = config_text(settings);
    keep(share.best, std::move(row), top);
  });
  return share;
}

}  // namespace

SearchResult run_search(const JobSpec& base, const SearchSpace& space, const SearchOptions& options,
                        const Predictor& predictor, const Calibrator* calibration) {
  if (options.top < 1) throw InputError("--top must be at least 1");
  if (options.threads < 1 || options.threads > 256) throw InputError("--threads must be between 1 and 256");
  SearchResult result;
  result.objective = options.objective;
  result.job_file = base.file;
  for (const auto& a : space.axes) result.axes.push_back(a.key);

  const int blocks = count_blocks(resolve_job(base, predictor.catalogs()).workload);  // once per search
  const double total = Enumerator(space, blocks).count(base);
  if (total > kMaxSearchConfigurations)
    throw InputError((space.file.empty() ? std::string("--search") : space.file) + ": the space has " +
                     std::to_string(static_cast<long long>(std::min(total, 9e18))) +
                     " configurations, more than the limit of " +
                     std::to_string(static_cast<long long>(kMaxSearchConfigurations)) + "; list fewer values in --space");

  // Threads take every n-th configuration and share the one Predictor (immutable: each share owns
  // its workload cache and learned memo); the shares merge under the same total order, so the rows
  // do not depend on the thread count.
  const auto n = static_cast<std::size_t>(options.threads);
  std::vector<Share> shares(n);
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < n; ++t)
    pool.emplace_back([&, t] {
      try {
        shares[t] = search_share(base, space, options, blocks, predictor, calibration, t, n);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  try {
    shares[0] = search_share(base, space, options, blocks, predictor, calibration, 0, n);
  } catch (...) {
    errors[0] = std::current_exception();
  }
  for (auto& th : pool) th.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  std::vector<SearchRow> best;
  for (auto& s : shares) {
    result.configurations += s.configurations;
    result.invalid += s.invalid;
    result.no_fit += s.no_fit;
    result.ranked += s.ranked;
    result.default_priced += s.default_priced;
    for (const auto& g : s.default_priced_gpus)
      if (std::find(result.default_priced_gpus.begin(), result.default_priced_gpus.end(), g) ==
          result.default_priced_gpus.end())
        result.default_priced_gpus.push_back(g);
    for (auto& row : s.best) keep(best, std::move(row), static_cast<std::size_t>(options.top));
  }
  std::sort(result.default_priced_gpus.begin(), result.default_priced_gpus.end());
  for (auto& row : best) add_reproduction(row, base, options.overrides);
  result.rows = std::move(best);
  return result;
}

}  // namespace ptp
