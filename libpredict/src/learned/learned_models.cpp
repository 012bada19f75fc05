#include "ptp/predict/learned/learned_models.hpp"

#include <cmath>

namespace ptp {

namespace {
std::string trained_math(const std::string& math) { return math == "bf16" ? "fp16" : math; }

// Sweeps and repeated layers ask for the same feature rows over and over; the caches key a row by
// its bytes and are dropped whole when they grow past this.
constexpr std::size_t kMaxCachedRows = 200000;
std::string row_key(const std::vector<float>& row) {
  return std::string(reinterpret_cast<const char*>(row.data()), row.size() * sizeof(float));
}
}  // namespace

bool op_shape_of(const Op& op, const ResolvedJob& job, bool backward, std::vector<OpShape>& launches) {
  launches.clear();
  const auto& p = *job.policy;
  std::string cls;
  switch (op.kind) {
    case OpKind::gemm: cls = "gemm"; break;
    case OpKind::attention_bmm: cls = "batched_gemm"; break;
    case OpKind::norm: cls = "layernorm"; break;
    case OpKind::softmax: cls = "softmax"; break;
    case OpKind::elementwise: cls = "elementwise"; break;
    default: return false;
  }
  if (op.repeats > 1) return false;
  if (cls == "gemm" || cls == "batched_gemm") {
    const std::string math = op_math_mode(op, job);
    const double io = math == "fp32" ? 4.0 : p.gemm_io_bytes;
    auto gemm = [&](double m, double n, double k) {
      OpShape s{cls, m, n, k, op.batch, 2 * m * n * k * op.batch, (m * k + k * n + m * n) * op.batch * io, math};
      launches.push_back(s);
    };
    if (!backward) {
      gemm(op.m, op.n, op.k);
    } else {
      if (op.input_grad) gemm(op.m, op.k, op.n);  // dgrad
      gemm(op.k, op.n, op.m);                     // wgrad (or the second operand's grad for bmm)
    }
    return true;
  }
  OpShape s{cls, 0, 0, 0, 1, (backward ? op.bwd_flops : op.fwd_flops),
            (op.elements_in + op.elements_out) * op_element_bytes(op, p) * (backward ? 2 : 1), "fp32"};
  s.m = op.elements_out;
  launches.push_back(s);
  return true;
}

void LearnedOpModel::prepare(const ResolvedJob& job) const {
  prepared_.clear();
  DenseMatrix x;
  std::vector<double> bounds;
  struct Slot { const Op* op; bool backward; std::size_t first, count; };
  std::vector<Slot> slots;
  std::vector<OpShape> launches;
  std::vector<std::string> keys;
  std::vector<std::size_t> missing;  // indices into keys of rows the cache lacks, in x's order
  if (cache_.size() > kMaxCachedRows) cache_.clear();
  for (const auto& op : job.workload.ops) {
    for (bool backward : {false, true}) {
      if (!op_shape_of(op, job, backward, launches)) break;
      bool ok = true;
      for (const auto& s : launches)
        if ((s.op_class == "gemm" || s.op_class == "batched_gemm") && !maths_.count(trained_math(s.math))) ok = false;
      if (!ok) break;
      slots.push_back({&op, backward, bounds.size(), launches.size()});
      for (auto s : launches) {
        s.math = trained_math(s.math);
        const auto row = op_features(s, *job.gpu);
        keys.push_back(row_key(row));
        if (cache_.emplace(keys.back(), 0.f).second) {  // placeholder until the batch is predicted
          missing.push_back(keys.size() - 1);
          x.add_row(row);
        }
        bounds.push_back(op_roofline_seconds(s, *job.gpu));
      }
    }
  }
  const auto fresh = booster_.predict(x);
  for (std::size_t j = 0; j < missing.size(); ++j) cache_[keys[missing[j]]] = fresh[j];
  for (const auto& s : slots) {
    double t = 0;
    for (std::size_t i = s.first; i < s.first + s.count; ++i)
      t += bounds[i] * std::exp(static_cast<double>(cache_.at(keys[i])));
    auto& entry = prepared_.try_emplace(s.op, -1.0, -1.0).first->second;
    (s.backward ? entry.second : entry.first) = t;
  }
}

double LearnedOpModel::seconds(const Op& op, const ResolvedJob&, bool backward) const {
  auto it = prepared_.find(&op);
  if (it == prepared_.end()) return -1;
  return backward ? it->second.second : it->second.first;
}

double LearnedCollectiveModel::allreduce_seconds(double bytes, const ResolvedJob& job, double) const {
  if (cache_.size() > kMaxCachedRows) cache_.clear();
  CollectiveShape c;
  c.bytes = bytes;
  c.ranks = job.data_parallel;
  c.ranks_per_node = std::max(1, std::min(job.data_parallel, job.gpus_per_node));
  c.nodes = (c.ranks + c.ranks_per_node - 1) / c.ranks_per_node;
  const double bound = collective_bound_seconds(c, *job.gpu, job.fabric);
  const auto features = collective_features(c, *job.gpu, job.fabric);
  const std::string key = row_key(features);
  auto it = cache_.find(key);
  if (it == cache_.end()) it = cache_.emplace(key, booster_.predict_one(features)).first;
  return bound * std::exp(static_cast<double>(it->second));
}

}  // namespace ptp
