#include "ptp/predict/prediction_caches.hpp"

#include <cstdint>
#include <cstdio>
#include <tuple>

#include "analytical/step_memo.hpp"
#include "ptp/predict/job_fields.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {

// The fields build_job_workload reads besides the model (and the sections it reads whole), by
// their job-field table keys: a field added to one of the sections joins the key by itself.
bool read_by_workload_build(const JobField& f) {
  static const char* const fields[] = {"batch_size", "seq_len", "avg_seq_len", "packing", "attention_mask",
                                       "mtp_depth", "memory.untie_embeddings"};
  static const char* const sections[] = {"finetune", "low_precision"};
  if (!f.get) return false;
  for (const char* key : fields)
    if (f.key == key) return true;
  const std::string section = f.section();
  for (const char* s : sections)
    if (section == s) return true;
  return false;
}

std::string percent(const CacheCounter& c) {
  const std::size_t n = c.hits + c.misses;
  char text[96];
  if (n == 0) return "unused";
  std::snprintf(text, sizeof text, "%zu of %zu reused (%.1f %%)", c.hits, n, 100.0 * static_cast<double>(c.hits) / n);
  return text;
}

CacheReport memo_report(const SharedWorkload& w) {
  CacheReport r;
  r.partitions = w.memo->partition_lookups();
  r.op_time_tables = w.memo->table_lookups();
  r.stage_sums = w.memo->op_sum_lookups();
  r.stage_stashes = w.memo->stash_lookups();
  return r;
}

}  // namespace

void CacheReport::add(const CacheReport& o) {
  flag_values.add(o.flag_values);
  workloads.add(o.workloads);
  partitions.add(o.partitions);
  op_time_tables.add(o.op_time_tables);
  stage_sums.add(o.stage_sums);
  stage_stashes.add(o.stage_stashes);
  learned_launches.add(o.learned_launches);
  learned_rows.add(o.learned_rows);
  collective_rows.add(o.collective_rows);
  unsharded_rows.add(o.unsharded_rows);
  support.add(o.support);
}

std::string CacheReport::text() const {
  return "caches: flag values " + percent(flag_values) + "; workloads " + percent(workloads) + "; stage partitions " + percent(partitions) +
         "; op-time tables " + percent(op_time_tables) + "; stage op sums " + percent(stage_sums) +
         "; stage activation stashes " + percent(stage_stashes) + "; learned launches " + percent(learned_launches) +
         "; learned op rows " + percent(learned_rows) + "; learned collective rows " + percent(collective_rows) +
         "; unsharded aggregator rows " + percent(unsharded_rows) + "; support lookups " + percent(support);
}

std::string workload_key(const ResolvedJob& frame) {
  // The catalog keeps each model it loaded at one address for the session (Catalogs::model).
  std::string key = std::to_string(reinterpret_cast<std::uintptr_t>(frame.model));
  for (const auto& f : job_fields())
    if (read_by_workload_build(f)) key += "|" + f.key + "=" + field_text(f.get(frame.job));
  return key;
}

std::shared_ptr<const SharedWorkload> WorkloadCache::find(const std::string& key) {
  const auto it = built_.find(key);
  if (it == built_.end()) {
    ++counter_.misses;
    return nullptr;
  }
  ++counter_.hits;
  return it->second;
}

std::shared_ptr<const SharedWorkload> WorkloadCache::keep(std::string key, std::shared_ptr<const SharedWorkload> w) {
  if (built_.size() >= kKeepWorkloads) {
    const auto oldest = built_.find(built_order_.front());
    evicted_.add(memo_report(*oldest->second));
    built_.erase(oldest);
    built_order_.pop_front();
  }
  built_order_.push_back(key);
  return built_.emplace(std::move(key), std::move(w)).first->second;
}

ResolvedJob WorkloadCache::resolve(const JobSpec& job) {
  ResolvedJob r = resolve_job_frame(job, catalogs_);
  std::string key = workload_key(r);
  if (auto shared = find(key)) {
    attach_workload(r, job, std::move(shared));
    return r;
  }
  build_job_workload(r, job);
  attach_workload(r, job, keep(std::move(key), share_workload(std::move(r.workload), *r.model)));
  return r;
}

std::optional<ResolvedJob> WorkloadCache::resolve_layout(const JobSpec& job, Refusal* refused) {
  // A search varies the layout, the micro-batch and what the workload does not read: its workload
  // is keyed by the micro-batch alone, and built under one GPU with no model parallelism, so that
  // the layouts the search refuses (most of them) do not each build it again.
  const auto key = std::make_tuple(job.model, job.batch_size, job.batch_tokens, job.seq_len);
  auto it = by_micro_batch_.find(key);
  if (it == by_micro_batch_.end()) {
    ++counter_.misses;
    JobSpec one = job;
    one.parallelism = ParallelismSpec{};
    one.global_batch_size.reset();
    one.cluster.num_gpus = 1;
    one.cluster.gpus_per_node = 0;
    ResolvedJob built = resolve_job(one, catalogs_);
    it = by_micro_batch_.emplace(key, share_workload(std::move(built.workload), *built.model)).first;
  } else {
    ++counter_.hits;
  }
  return resolve_shared_job(job, catalogs_, it->second, refused);
}

CacheReport WorkloadCache::report() const {
  CacheReport r = evicted_;
  r.workloads = counter_;
  for (const auto& entry : built_) r.add(memo_report(*entry.second));
  for (const auto& entry : by_micro_batch_) r.add(memo_report(*entry.second));
  return r;
}

CacheReport PredictionCaches::report() const {
  CacheReport r = workloads.report();
  r.flag_values = {flag_values.hits, flag_values.misses};
  r.learned_launches = {learned.launch_hits, learned.launch_misses};
  r.learned_rows = {learned.op_row_hits, learned.op_row_misses};
  r.collective_rows = {learned.collective_row_hits, learned.collective_row_misses};
  r.unsharded_rows = {learned.unsharded_rows.hits, learned.unsharded_rows.misses};
  r.support = {learned.support_hits, learned.support_misses};
  return r;
}

}  // namespace ptp::predict
