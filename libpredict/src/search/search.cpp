// The search loop: every configuration of the space is edited into a copy of the parsed job, resolved
// (reusing the workload of its micro-batch), checked for memory, and only then timed. Configurations
// with the same prediction are kept as one group, and groups best-first by their best member's
// (objective, configuration text), so the ranking is the same in any enumeration order.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <tuple>
#include <utility>

#include "ptp/predict/detail/parallelism.hpp"
#include "ptp/predict/analytical.hpp"
#include "ptp/predict/prediction_caches.hpp"
#include "ptp/predict/search.hpp"
#include "ptp/vocab/error.hpp"
#include "search_fields.hpp"
#include "search_walk.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

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
// To 6 significant digits, as CSV prints: monotone in x, so a smaller rounded value means a smaller x.
double round6(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return std::strtod(text, nullptr);
}
}  // namespace

bool SearchEquivalenceKey::operator<(const SearchEquivalenceKey& o) const {
  return std::tie(objective, iteration_s, per_gpu_bytes, gpu, num_gpus) <
         std::tie(o.objective, o.iteration_s, o.per_gpu_bytes, o.gpu, o.num_gpus);
}
bool SearchEquivalenceKey::operator==(const SearchEquivalenceKey& o) const { return !(*this < o) && !(o < *this); }

SearchEquivalenceKey search_equivalence_key(const Prediction& p, double objective) {
  return {round6(objective), round6(p.iteration_s), round6(p.memory.per_gpu_bytes), p.gpu, p.num_gpus};
}

void mark_search_ties(SearchResult& r) {
  r.tie_margin = 0, r.tie_band_low = r.tie_band_high = 1;
  for (auto& row : r.rows) row.tie = false;
  if (r.rows.empty()) return;
  const Prediction& best = r.rows.front().prediction;
  const bool energy = r.objective == SearchObjective::energy || r.objective == SearchObjective::carbon;
  if (energy && best.energy.valid) {
    r.tie_band_low = best.energy.band_low_factor, r.tie_band_high = best.energy.band_high_factor;
  } else if (!energy && best.iteration_s > 0 && best.iteration_low_s > 0) {
    r.tie_band_low = best.iteration_low_s / best.iteration_s, r.tie_band_high = best.iteration_high_s / best.iteration_s;
  }
  if (!(r.tie_band_low > 0) || !(r.tie_band_high >= r.tie_band_low)) r.tie_band_low = r.tie_band_high = 1;
  // A tenth of the band's half-width, in log space, as a fraction of the objective.
  r.tie_margin = std::expm1(0.1 * 0.5 * std::log(r.tie_band_high / r.tie_band_low));
  const double limit = r.rows.front().objective * (1 + r.tie_margin);
  bool any = false;
  for (std::size_t i = 1; i < r.rows.size(); ++i)
    if (r.rows[i].objective <= limit) r.rows[i].tie = any = true;
  r.rows.front().tie = any;
}

namespace {

using detail::Enumerator;

// Configurations one search may walk. The default space of a 1,024-GPU LLM is ~10^5; beyond 10^7 a
// space file is a mistake (or an attack) that would run for hours.
constexpr double kMaxSearchConfigurations = 1e7;

std::string config_text(const std::vector<Override>& settings) {
  std::string out;
  for (const auto& [k, v] : settings) out += (out.empty() ? "" : " ") + std::string("--set ") + k + "=" + v;
  return out;
}

bool better(const SearchRow& a, const SearchRow& b) {
  if (a.objective != b.objective) return a.objective < b.objective;
  return a.config < b.config;
}

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
  for (auto& e : row.equivalent) e.insert(e.end(), kept_user.begin(), kept_user.end());
}

}  // namespace

namespace {

// Configurations with one prediction (search_equivalence_key): the best of them by (objective,
// configuration text) with its prediction, the others by their flags.
struct Group {
  SearchRow best;
  std::vector<SearchRow> others;  // settings, objective and config only

  void add(SearchRow row) {
    if (better(row, best)) std::swap(row, best);
    row.prediction = Prediction{};
    others.push_back(std::move(row));
  }
  void merge(Group g) {
    add(std::move(g.best));
    for (auto& o : g.others) others.push_back(std::move(o));
  }
};
using Groups = std::map<SearchEquivalenceKey, Group>;

// Keeps the groups a ranking of `top` may show. A group is dropped only when `top` others have a
// smaller rounded objective, so all of its members are worse than theirs: whatever the order the
// configurations come in, every group that can be among the best `top` keeps every member.
void prune(Groups& groups, std::size_t top) {
  if (groups.size() <= top) return;
  const auto nth = std::next(groups.begin(), static_cast<std::ptrdiff_t>(top) - 1);
  auto cut = std::next(nth);
  while (cut != groups.end() && cut->first.objective == nth->first.objective) ++cut;
  groups.erase(cut, groups.end());
}

void keep(Groups& groups, const SearchEquivalenceKey& key, Group g, std::size_t top) {
  if (auto it = groups.find(key); it != groups.end()) {
    it->second.merge(std::move(g));
    return;
  }
  if (groups.size() >= top &&
      key.objective > std::next(groups.begin(), static_cast<std::ptrdiff_t>(top) - 1)->first.objective)
    return;
  groups.emplace(key, std::move(g));
  prune(groups, top);
}

// One thread's share: every n-th run of kShareRun consecutive configurations of the walk from run
// `first`, its counts and its best groups. Runs, not single configurations: neighbours in the walk
// differ in one inner axis, which is what the session caches reuse across (a sharding's unsharded
// twin, a stage's sums, an op-time table); many runs per thread, so that the threads finish together
// (the configurations that fit cluster in parts of the walk).
constexpr std::size_t kShareRun = 2048;
struct Share {
  std::size_t configurations = 0, invalid = 0, no_fit = 0, unpriced = 0, ranked = 0;
  std::set<std::string> unpriced_gpus;
  Groups best;
  CacheReport caches;
};

Share search_share(const JobSpec& base, const SearchSpace& space, const SearchOptions& options, int blocks,
                   const Predictor& predictor, const Calibrator* calibration, std::size_t first, std::size_t stride) {
  Share share;
  PredictionCaches caches(predictor.catalogs());  // this share's: workloads, step memos, learned answers
  Enumerator walk(space, blocks);
  const auto top = static_cast<std::size_t>(options.top);
  std::size_t index = 0;
  walk.each(base, [&](const JobSpec& job, const std::vector<Override>& settings) {
    if ((index++ / kShareRun) % stride != first) return;
    ++share.configurations;
    std::optional<ResolvedJob> resolved;
    try {
      resolved = caches.workloads.resolve_layout(job);
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
    // A cost ranking cannot place a GPU nobody priced (price.hpp): it is left out, and counted.
    if (options.objective == SearchObjective::cost && !r.price.known()) {
      ++share.unpriced;
      share.unpriced_gpus.insert(r.gpu->id);
      return;
    }
    Group g;
    g.best.prediction = predictor.predict(r, caches.learned);
    if (!g.best.prediction.memory.fits || g.best.prediction.memory.near_capacity) {  // as the estimate above
      ++share.no_fit;
      return;
    }
    ++share.ranked;
    if (calibration) calibration->apply(g.best.prediction);
    g.best.objective = search_objective_value(g.best.prediction, options.objective);
    g.best.settings = settings;
    g.best.config = config_text(settings);
    const SearchEquivalenceKey key = search_equivalence_key(g.best.prediction, g.best.objective);
    keep(share.best, key, std::move(g), top);
  });
  share.caches = caches.report();
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

  // Threads take runs of the walk in turn and share the one Predictor (immutable: each share owns
  // its caches); the shares merge under the same total order, so the rows do not depend on the
  // thread count.
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
  Groups best;
  for (auto& s : shares) {
    result.configurations += s.configurations;
    result.invalid += s.invalid;
    result.no_fit += s.no_fit;
    result.ranked += s.ranked;
    result.unpriced += s.unpriced;
    result.caches.add(s.caches);
    for (const auto& g : s.unpriced_gpus)
      if (std::find(result.unpriced_gpus.begin(), result.unpriced_gpus.end(), g) == result.unpriced_gpus.end())
        result.unpriced_gpus.push_back(g);
    for (auto& [key, g] : s.best) keep(best, key, std::move(g), static_cast<std::size_t>(options.top));
  }
  std::sort(result.unpriced_gpus.begin(), result.unpriced_gpus.end());
  std::vector<Group> groups;
  for (auto& entry : best) groups.push_back(std::move(entry.second));
  std::sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) { return better(a.best, b.best); });
  if (groups.size() > static_cast<std::size_t>(options.top)) groups.resize(static_cast<std::size_t>(options.top));
  for (auto& g : groups) {
    std::sort(g.others.begin(), g.others.end(), better);
    SearchRow row = std::move(g.best);
    for (auto& o : g.others) row.equivalent.push_back(std::move(o.settings));
    add_reproduction(row, base, options.overrides);
    row.prediction.job_file = result.job_file;
    row.prediction.set_flags.clear();
    for (const auto& [k, v] : row.settings) row.prediction.set_flags.push_back(k + "=" + v);
    result.rows.push_back(std::move(row));
  }
  mark_search_ties(result);
  return result;
}

}  // namespace ptp::predict
