#include "step_memo.hpp"

#include <algorithm>
#include <cstring>

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

std::shared_ptr<const std::vector<Stage>> StepMemo::stages(const Workload& w, const Layout& l) {
  // partition_stages reads these layout fields only (shard_op: tp, sp, cp, ep; the split: pp, vp).
  auto same = [&](const Partition& p) {
    return p.tp == l.tp && p.pp == l.pp && p.vp == l.vp && p.cp == l.cp && p.ep == l.ep && p.sp == l.sp;
  };
  auto it = std::find_if(recent_.begin(), recent_.end(), same);
  if (it != recent_.end()) {
    ++partition_lookups_.hits;
    std::rotate(it, it + 1, recent_.end());
    return recent_.back().stages;
  }
  ++partition_lookups_.misses;
  if (recent_.size() == kKeep) recent_.erase(recent_.begin());
  recent_.push_back({l.tp, l.pp, l.vp, l.cp, l.ep, l.sp,
                     std::make_shared<const std::vector<Stage>>(partition_stages(w, l))});
  return recent_.back().stages;
}

StepMemo::TimeTable& StepMemo::table_of(const Workload& w, const ResolvedJob& job, const Layout& l,
                                        const AnalyticalConstants& k) {
  const auto& j = job.job;
  auto same = [&](const TimeTable& t) {
    return t.tp == l.tp && t.cp == l.cp && t.ep == l.ep && t.sp == l.sp && t.policy == job.policy && t.gpu == job.gpu &&
           t.framework == j.framework && t.memory_format == j.memory_format && t.xla == j.xla &&
           t.cuda_graphs == j.cuda_graphs && t.compile == j.compile &&
           t.forward_weight_bytes == job.state.forward_weight && t.attention_kernel == job.state.attention_kernel &&
           t.fp8_recipe == job.fp8_recipe &&
           std::memcmp(&t.k, &k, sizeof k) == 0;
  };
  auto it = std::find_if(tables_.begin(), tables_.end(), same);
  if (it != tables_.end()) {
    ++table_lookups_.hits;
    std::rotate(it, it + 1, tables_.end());
  } else {
    ++table_lookups_.misses;
    if (tables_.size() == kKeepTables) tables_.erase(tables_.begin());
    tables_.push_back({l.tp, l.cp, l.ep, l.sp, job.policy, job.gpu, j.framework, j.memory_format, j.xla, j.cuda_graphs, j.compile,
                       job.state.forward_weight, job.state.attention_kernel, job.fp8_recipe, k,
                       std::vector<bool>(w.ops.size(), false), std::make_shared<std::vector<OpTime>>(w.ops.size())});
  }
  return tables_.back();
}

OpTimes StepMemo::op_times(const Stage& s, const Workload& w, const ResolvedJob& job, const Layout& l,
                           const AnalyticalConstants& k) {
  TimeTable& t = table_of(w, job, l, k);
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    const std::size_t at = s.source[i];
    if (t.known[at]) continue;
    (*t.times)[at] = analytical_op_time(s.ops[i], job, k);
    t.known[at] = true;
  }
  OpTimes out;
  out.table = t.times;
  out.source = &s.source;
  return out;
}

std::shared_ptr<const StageOpSums> StepMemo::op_sums(const Stage& s, const Workload& w, const ResolvedJob& job,
                                                   const Layout& l, const AnalyticalConstants& k, bool layer_names) {
  const auto table = table_of(w, job, l, k).times;
  const SumsKey key{table.get(), l.pp, l.vp, s.index, static_cast<int>(l.recompute),
                    static_cast<int>(job.state.computation.selective), layer_names};
  const auto it = sums_.find(key);
  if (it != sums_.end()) {
    ++op_sum_lookups_.hits;
    return it->second.sums;
  }
  ++op_sum_lookups_.misses;
  auto sums = std::make_shared<const StageOpSums>(stage_op_sums(s, job, l, k, layer_names));
  if (sums_.size() >= kKeepSums) sums_.clear();
  sums_[key] = {table, sums};
  return sums;
}


const StashSums* StepMemo::find_stash(const Stage& s, const Layout& l, const PrecisionPolicy& p,
                                      const TrainingStateBytes& ts) {
  const StashKey key{l.tp, l.pp, l.vp, l.cp, l.ep, l.sp, s.index, static_cast<int>(l.recompute), &p, ts.convention};
  const auto it = stashes_.find(key);
  if (it == stashes_.end() || !(it->second.first == ts)) {
    ++stash_lookups_.misses;
    return nullptr;
  }
  ++stash_lookups_.hits;
  return &it->second.second;
}

void StepMemo::keep_stash(const Stage& s, const Layout& l, const PrecisionPolicy& p, const TrainingStateBytes& ts,
                          const StashSums& sums) {
  if (stashes_.size() >= kKeepSums) stashes_.clear();
  stashes_[{l.tp, l.pp, l.vp, l.cp, l.ep, l.sp, s.index, static_cast<int>(l.recompute), &p, ts.convention}] = {ts, sums};
}

std::shared_ptr<const StageOpSums> stage_op_sums_of(const Stage& s, const ResolvedJob& job, const Layout& l,
                                                    const AnalyticalConstants& k, bool layer_names) {
  if (job.shared) return job.shared->memo->op_sums(s, job.shared->workload, job, l, k, layer_names);
  return std::make_shared<const StageOpSums>(stage_op_sums(s, job, l, k, layer_names));
}

OpTimes op_times_of(const Stage& s, const ResolvedJob& job, const Layout& l, const AnalyticalConstants& k) {
  if (job.shared) return job.shared->memo->op_times(s, job.shared->workload, job, l, k);
  OpTimes out;
  out.own.reserve(s.ops.size());
  for (const auto& op : s.ops) out.own.push_back(analytical_op_time(op, job, k));
  return out;
}

std::shared_ptr<const std::vector<Stage>> stages_of(const ResolvedJob& job, const Layout& l) {
  if (job.shared) return job.shared->memo->stages(job.shared->workload, l);
  return std::make_shared<const std::vector<Stage>>(partition_stages(job.workload, l));
}

int blocks_of(const ResolvedJob& job) { return job.shared ? job.shared->blocks : count_blocks(job.workload); }

}  // namespace ptp::predict
