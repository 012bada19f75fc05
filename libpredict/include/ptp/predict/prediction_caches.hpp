#pragma once
// What one prediction session (a sweep, one thread of a search) keeps between its predictions: the
// workloads it built, with what the step model derived from each (stage partitions and op-time
// tables: analytical/step_memo.hpp), and the learned levels' answers (LearnedMemo). Every cached
// value is the value the direct computation returns, so a row of a sweep or a search is exactly the
// prediction a single call makes. The caches are explicit objects the session owns and passes down;
// none is a hidden static. `--verbose` prints their hit rates (CacheReport::text).
#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "ptp/predict/learned/learned_memo.hpp"
#include "ptp/predict/resolved_job.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

struct CacheCounter {
  std::size_t hits = 0, misses = 0;
  void add(const CacheCounter& o) { hits += o.hits, misses += o.misses; }
};

// Lookups of each cache of a session, summed over its threads.
struct CacheReport {
  CacheCounter flag_values;    // a --set/--sweep value's YAML, read once (OverrideValueCache)
  CacheCounter workloads;      // one per (model, micro-batch, seq_len, fine-tuning, sequence layout, ...)
  CacheCounter partitions;     // pipeline stages of a workload under a layout
  CacheCounter op_time_tables; // op times of a workload under a shard, GPU, precision and stack
  CacheCounter stage_sums;     // a stage's op times summed (stage_time's loop over its ops)
  CacheCounter stage_stashes;  // a stage's activation stash summed (the memory model's loop over its ops)
  CacheCounter learned_launches, learned_rows, collective_rows;  // LearnedMemo
  CacheCounter unsharded_rows;  // the aggregator rows of sharded jobs' unsharded twins
  CacheCounter support;         // training runs near an aggregator row
  void add(const CacheReport& o);
  // "caches: ...; workloads 9950 of 10000 reused (99.5 %); ..." on one line.
  std::string text() const;
};

// The workloads of one session, by what building one reads from the job. Used by one thread.
class WorkloadCache {
 public:
  explicit WorkloadCache(const Catalogs& catalogs) : catalogs_(catalogs) {}
  // resolve_job(job, catalogs): the same ResolvedJob and the same errors, with the workload shared
  // with every earlier job of the session that has the same one (ResolvedJob::shared).
  ResolvedJob resolve(const JobSpec& job);
  // For a search's configuration: nullopt (and `refused`, when given) where the configuration breaks
  // a layout rule of the job spec; InputError where it breaks one its workload is built under.
  std::optional<ResolvedJob> resolve_layout(const JobSpec& job, Refusal* refused = nullptr);
  CacheReport report() const;  // workloads, partitions and op-time tables

 private:
  std::shared_ptr<const SharedWorkload> find(const std::string& key);
  std::shared_ptr<const SharedWorkload> keep(std::string key, std::shared_ptr<const SharedWorkload> workload);
  // A sweep over 10^5 micro-batch sizes of a large model must not keep 10^5 workloads: the oldest
  // go (with their step memos' counts kept).
  static constexpr std::size_t kKeepWorkloads = 64;
  const Catalogs& catalogs_;
  std::map<std::string, std::shared_ptr<const SharedWorkload>> built_;
  std::map<std::tuple<std::string, double, double, int>, std::shared_ptr<const SharedWorkload>> by_micro_batch_;
  std::deque<std::string> built_order_;  // keys of built_, oldest first
  CacheCounter counter_;
  CacheReport evicted_;  // the step memos' counts of workloads no longer kept
};

// What building a job's workload reads (resolve_job): its key in a WorkloadCache. `frame` is
// resolved up to the workload (model, batch from batch_tokens, stack defaults applied).
std::string workload_key(const ResolvedJob& frame);

// The caches of one session (one thread).
struct PredictionCaches {
  explicit PredictionCaches(const Catalogs& catalogs) : workloads(catalogs) { learned.keep_unsharded_rows = true; }
  WorkloadCache workloads;
  LearnedMemo learned;
  OverrideValueCache flag_values;
  CacheReport report() const;
};

}  // namespace ptp::predict
