#include "ptp/predict/learned/learned_models.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

#include "ptp/vocab/math_mode.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {
std::string trained_math(const std::string& math) {
  const MathMode* mode = find_math_mode(math);
  return mode ? mode->trains_as : math;
}

// Sweeps and repeated layers ask for the same feature rows over and over; the caches key a row by
// its bytes and are dropped whole when they grow past this.
constexpr std::size_t kMaxCachedRows = 200000;
std::string row_key(const std::vector<float>& row) {
  return std::string(reinterpret_cast<const char*>(row.data()), row.size() * sizeof(float));
}
}  // namespace

std::string measured_key(const std::string& gpu_id, const OpShape& shape) {
  return gpu_id + "|" + (is_gemm_class(shape) ? trained_math(shape.math) : std::string("memory"));
}

bool op_shape_of(const Op& op, const ResolvedJob& job, bool backward, std::vector<OpShape>& launches) {
  launches.clear();
  OpClass cls = OpClass::gemm;
  switch (op.kind) {
    case OpKind::gemm: cls = OpClass::gemm; break;
    case OpKind::attention_bmm: cls = OpClass::batched_gemm; break;
    case OpKind::norm: cls = OpClass::layernorm; break;
    case OpKind::softmax: cls = OpClass::softmax; break;
    case OpKind::elementwise: cls = OpClass::elementwise; break;
    // No kernel timings of these in the training data: the roofline answers them.
    case OpKind::fused_attention:
    case OpKind::conv:
    case OpKind::embedding:
    case OpKind::pooling:
    case OpKind::rnn:
    case OpKind::loss:
      return false;
  }
  if (op.repeats > 1) return false;
  if (is_gemm_class(cls)) {
    const std::string math = op_math_mode(op, job);
    const double io = math_mode(math).fp32_simt() ? 4.0 : op_element_bytes(op, job);
    auto gemm = [&](double m, double n, double k) {
      OpShape s{cls, m, n, k, op.batch, 2 * m * n * k * op.batch, (m * k + k * n + m * n) * op.batch * io, math};
      launches.push_back(s);
    };
    if (!backward) {
      gemm(op.m, op.n, op.k);
    } else {
      if (op.input_grad) gemm(op.m, op.k, op.n);  // dgrad
      if (!op.frozen) gemm(op.k, op.n, op.m);     // wgrad (or the second operand's grad for bmm)
    }
    return true;
  }
  OpShape s{cls, 0, 0, 0, 1, (backward ? op.bwd_flops : op.fwd_flops),
            (op.elements_in + op.elements_out) * op_element_bytes(op, job) * (backward ? 2 : 1), "fp32"};
  s.m = op.elements_out;
  launches.push_back(s);
  return true;
}

bool LearnedOpModel::launches_of(const Op& op, const ResolvedJob& job, bool backward,
                                 std::vector<OpShape>& launches) const {
  if (!op_shape_of(op, job, backward, launches)) return false;
  for (auto& s : launches) {
    if (is_gemm_class(s) && !maths_.count(trained_math(s.math))) return false;
    s.math = trained_math(s.math);
  }
  return true;
}

namespace {
std::atomic<std::uint64_t> next_model_id{1};

LearnedMemo::LaunchKey launch_key(const OpShape& s, const GpuSpec* gpu) {
  LearnedMemo::LaunchKey key;
  std::memset(static_cast<void*>(&key), 0, sizeof key);  // padding too: keys compare and hash as bytes
  key.gpu = gpu;
  const double v[6] = {s.m, s.n, s.k, s.batch, s.flops, s.bytes};
  std::memcpy(key.shape, v, sizeof v);
  key.op_class = s.op_class;
  key.valid = s.math.size() < sizeof key.math;
  if (key.valid) std::memcpy(key.math, s.math.data(), s.math.size());
  return key;
}

}  // namespace

std::size_t LearnedMemo::LaunchKeyHash::operator()(const LaunchKey& k) const {
  std::uint64_t words[sizeof(LaunchKey) / 8], h = 0x9e3779b97f4a7c15ull;
  std::memcpy(words, &k, sizeof words);
  for (std::uint64_t w : words) h = (h ^ w) * 0x100000001b3ull + (h >> 29);
  return static_cast<std::size_t>(h);
}

const GpuSpec* LearnedOpModel::measured_sibling(const GpuSpec& gpu, const OpShape& shape) const {
  if (!gpus_) return nullptr;
  const std::string kind = measured_key("", shape);  // "|<math>" or "|memory"
  const double peak = gpu.has_math(shape.math) ? gpu.peak_flops(shape.math) : gpu.peak_flops("fp32");
  const double bw = gpu.bandwidth_bytes_per_s();
  const GpuSpec* best = nullptr;
  double best_distance = 0;
  for (const auto& pair : measured_) {  // sorted: ties go to the first id
    if (pair.size() <= kind.size() || pair.compare(pair.size() - kind.size(), kind.size(), kind) != 0) continue;
    const GpuSpec* g = gpus_->find(pair.substr(0, pair.size() - kind.size()));
    // The same kernels at the same clocks: a board capped below its design power by default (Meta's
    // 500 W Grand Teton H100s) runs them slower than the roofline's clocks assume.
    if (!g || g->sm_version() != gpu.sm_version() || g->default_power_limit_w != gpu.default_power_limit_w) continue;
    const double g_peak = g->has_math(shape.math) ? g->peak_flops(shape.math) : g->peak_flops("fp32");
    const double distance = std::fabs(std::log(g_peak / peak)) + std::fabs(std::log(g->bandwidth_bytes_per_s() / bw));
    if (!best || distance < best_distance) best = g, best_distance = distance;
  }
  return best;
}

bool LearnedMemo::LaunchKey::operator==(const LaunchKey& o) const { return std::memcmp(this, &o, sizeof o) == 0; }

LearnedOpModel::LearnedOpModel(TreeEnsemble trees, std::set<std::string> maths, std::set<std::string> measured)
    : trees_(std::move(trees)), maths_(std::move(maths)), measured_(std::move(measured)), id_(next_model_id++) {}

std::optional<double> LearnedOpModel::seconds(const Op& op, const ResolvedJob& job, bool backward, double analytical_s,
                                              LearnedMemo& memo) const {
  // A function of what the op is (shape, math, dtypes, GPU), never of where it is stored: the
  // step composes copies of the workload's ops (tensor-parallel shards, pipeline stages).
  thread_local std::vector<OpShape> launches;
  if (!launches_of(op, job, backward, launches)) return std::nullopt;
  if (memo.op_model != id_) {  // another model's answers: dropped
    memo.op_rows.clear();
    memo.launches.clear();
    memo.op_model = id_;
  }
  if (memo.op_rows.size() > kMaxCachedRows) memo.op_rows.clear();
  if (memo.launches.size() > kMaxCachedRows) memo.launches.clear();
  double t = 0, bound = 0;  // bound: the siblings' learned time here (negative: some launch has none)
  bool measured = true;
  for (const auto& s : launches) {
    // Repeated layers and their shards ask for the same launches: the memo skips the features.
    const LearnedMemo::LaunchKey memo_key = launch_key(s, job.gpu);
    auto hit = memo_key.valid ? memo.launches.find(memo_key) : memo.launches.end();
    if (hit == memo.launches.end()) {
      ++memo.launch_misses;
      LearnedMemo::LaunchAnswer a;
      a.measured = measured_.count(measured_key(job.gpu->id, s)) > 0;
      auto predicted = [&](const GpuSpec& on) {
        const auto row = op_features(s, on);
        const std::string key = row_key(row);
        auto it = memo.op_rows.find(key);
        if (it == memo.op_rows.end()) {
          ++memo.op_row_misses;
          it = memo.op_rows.emplace(key, trees_.predict_one(row)).first;
        } else {
          ++memo.op_row_hits;
        }
        return static_cast<double>(it->second);
      };
      const double analytical = op_analytical_seconds(s, *job.gpu);
      a.seconds = analytical * std::exp(predicted(*job.gpu));
      if (a.measured) {
        a.bound_seconds = a.seconds;
      } else if (const GpuSpec* sibling = measured_sibling(*job.gpu, s)) {
        a.bound_seconds = analytical * std::exp(predicted(*sibling));
      }
      if (!memo_key.valid) {
        measured = measured && a.measured;
        t += a.seconds;
        bound = bound >= 0 && a.bound_seconds >= 0 ? bound + a.bound_seconds : -1;
        continue;
      }
      hit = memo.launches.emplace(memo_key, a).first;
    } else {
      ++memo.launch_hits;
    }
    measured = measured && hit->second.measured;
    t += hit->second.seconds;
    bound = bound >= 0 && hit->second.bound_seconds >= 0 ? bound + hit->second.bound_seconds : -1;
  }
  // Off the measured GPU x math pairs, shrink the learned time toward the analytical op time
  // (geometric mean at kLearnedOpWeight): there the trees extrapolate from other GPUs' kernels.
  if (!measured && kLearnedOpWeight < 1.0 && t > 0 && analytical_s > 0)
    t = std::exp(kLearnedOpWeight * std::log(t) + (1 - kLearnedOpWeight) * std::log(analytical_s));
  // Never slower than the measured siblings' kernels at this GPU's rates: a GPU faster than its
  // sibling stays faster, whatever the trees say of its own features.
  if (!measured && bound > 0) t = std::min(t, bound);
  return t;
}

double CollectiveReach::weight(int ranks, int nodes) const {
  double distance = 1;
  if (max_ranks > 0) distance = std::max(distance, static_cast<double>(ranks) / max_ranks);
  if (max_nodes > 0) distance = std::max(distance, static_cast<double>(nodes) / max_nodes);
  return 1 / distance;
}

LearnedCollectiveModel::LearnedCollectiveModel(TreeEnsemble trees, CollectiveReach reach)
    : trees_(std::move(trees)), reach_(reach), id_(next_model_id++) {}

namespace {
CollectiveShape data_parallel_group(double bytes, const ResolvedJob& job) {
  CollectiveShape c;
  c.bytes = bytes;
  c.ranks = job.data_parallel;
  c.ranks_per_node = std::max(1, std::min(job.data_parallel, job.gpus_per_node));
  c.nodes = (c.ranks + c.ranks_per_node - 1) / c.ranks_per_node;
  return c;
}
}  // namespace

double LearnedCollectiveModel::weight(const ResolvedJob& job) const {
  const CollectiveShape c = data_parallel_group(0, job);
  return reach_.weight(c.ranks, c.nodes);
}

double LearnedCollectiveModel::allreduce_seconds(double bytes, const ResolvedJob& job, double analytical_s,
                                                 LearnedMemo& memo) const {
  if (memo.collective_model != id_) {
    memo.collective_rows.clear();
    memo.collective_model = id_;
  }
  if (memo.collective_rows.size() > kMaxCachedRows) memo.collective_rows.clear();
  const CollectiveShape c = data_parallel_group(bytes, job);
  const double bound = collective_bound_seconds(c, *job.gpu, job.fabric);
  const auto features = collective_features(c, *job.gpu, job.fabric);
  const std::string key = row_key(features);
  auto it = memo.collective_rows.find(key);
  if (it == memo.collective_rows.end()) {
    ++memo.collective_row_misses;
    it = memo.collective_rows.emplace(key, trees_.predict_one(features)).first;
  } else {
    ++memo.collective_row_hits;
  }
  const double learned = bound * std::exp(static_cast<double>(it->second));
  const double w = reach_.weight(c.ranks, c.nodes);
  if (w >= 1 || !(analytical_s > 0)) return learned;
  return std::exp(w * std::log(learned) + (1 - w) * std::log(analytical_s));
}

namespace {
// The levels as the analytical composition's seams see them, answering into one caller's memo.
class MemoOpModel final : public OpTimeModel {
 public:
  MemoOpModel(const LearnedOpModel& m, LearnedMemo& memo) : model_(m), memo_(memo) {}
  double seconds(const Op& op, const ResolvedJob& job, bool backward, double analytical_s) const override {
    return model_.seconds(op, job, backward, analytical_s, memo_).value_or(-1.0);
  }

 private:
  const LearnedOpModel& model_;
  LearnedMemo& memo_;
};
class MemoCollectiveModel final : public CollectiveTimeModel {
 public:
  MemoCollectiveModel(const LearnedCollectiveModel& m, LearnedMemo& memo) : model_(m), memo_(memo) {}
  double allreduce_seconds(double bytes, const ResolvedJob& job, double analytical_s) const override {
    return model_.allreduce_seconds(bytes, job, analytical_s, memo_);
  }

 private:
  const LearnedCollectiveModel& model_;
  LearnedMemo& memo_;
};
}  // namespace

LearnedComposition compose_learned(const ResolvedJob& job, const AnalyticalConstants& base, const LearnedLevels& levels,
                                   LearnedMemo& memo, AggregatorRow row) {
  // A new job: its GPU may be a catalog entry at an address an earlier, freed entry had.
  memo.launches.clear();
  std::optional<MemoOpModel> op;
  std::optional<MemoCollectiveModel> collective;
  AnalyticalConstants k = base;
  if (levels.compute) k.op_model = &op.emplace(*levels.compute, memo);
  if (levels.communication) k.collective_model = &collective.emplace(*levels.communication, memo);
  LearnedComposition out;
  out.step = predict_analytical(job, k);
  if (levels.communication && out.step.communication_predictor == "learned")
    out.step.communication_learned_weight = levels.communication->weight(job);
  switch (row) {
    case AggregatorRow::none: break;
    case AggregatorRow::full:
    case AggregatorRow::blind: {
      auto values = aggregator_features(job, out.step, k, base, row == AggregatorRow::blind,
                                        memo.keep_unsharded_rows ? &memo.unsharded_rows : nullptr);
      out.aggregator_row = std::move(values.features);
      out.halves = values.halves;
      break;
    }
  }
  return out;
}

}  // namespace ptp::predict
