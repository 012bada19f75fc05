#pragma once
// What the step model derives from one workload under one layout, kept for the next prediction of
// the same workload. A search predicts a workload under thousands of layouts, and consecutive
// configurations often differ only in what these do not depend on (sharding, recomputation,
// precision): the pipeline partition copies and shards every op, and the learned path composes the
// step twice and checks memory once more, so without the memo each configuration partitions the
// model three times; and every op's time is the same under every pipeline split of a layout.
// Entries are the very values the direct computation returns (same code, same order of summation),
// so a memoised prediction is identical to a fresh one.
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "ptp/predict/detail/parallelism.hpp"
#include "ptp/predict/prediction_caches.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

// Times of a stage's ops: analytical_op_time of each, from the memo's table (by Stage::source) or
// computed for this stage alone.
struct OpTimes {
  std::shared_ptr<std::vector<OpTime>> table;  // by workload op index
  const std::vector<std::size_t>* source = nullptr;
  std::vector<OpTime> own;  // by stage op index
  const OpTime& operator[](std::size_t i) const { return table ? (*table)[(*source)[i]] : own[i]; }
};

// What stage_time sums over a stage's ops: the same for every layout that partitions and shards
// the workload alike, times its ops alike and recomputes alike (the communication, casts and
// exposure that stage_time adds are per layout).
struct StageOpSums {
  double gpu_fwd = 0, gpu_bwd = 0, gpu_gemm = 0, launch_fwd = 0, launch_bwd = 0, gpu_learned = 0;
  double rec_gpu = 0, rec_launch = 0, attention = 0, gemm_inputs = 0, gemm_outputs = 0, kept_16bit_weights = 0;
  bool first = false, last = false;  // holds the embedding / the loss
  std::map<OpKind, double> roofline_by_kind;
  std::vector<TraceLayer> layers;
  std::vector<double> layer_params;
};
StageOpSums stage_op_sums(const Stage& s, const ResolvedJob& job, const Layout& l, const AnalyticalConstants& k,
                          bool layer_names);

// What activation_stash sums over a stage's ops (memory.cpp): the same for every layout with the
// stage's partition, recomputation, precision and training state.
struct StashSums {
  double kept = 0, block_saved = 0, rebuilt = 0;
};

class StepMemo {
 public:
  // The stash sums kept for stage `s` of the partition under `l` with this precision and training
  // state, or null; keep_stash keeps them.
  const StashSums* find_stash(const Stage& s, const Layout& l, const PrecisionPolicy& p, const TrainingStateBytes& ts);
  void keep_stash(const Stage& s, const Layout& l, const PrecisionPolicy& p, const TrainingStateBytes& ts,
                  const StashSums& sums);
  const CacheCounter& stash_lookups() const { return stash_lookups_; }
  // stage_op_sums of a stage of this memo's workload, kept by its op-time table, its ops and how it
  // recomputes.
  std::shared_ptr<const StageOpSums> op_sums(const Stage& s, const Workload& w, const ResolvedJob& job,
                                             const Layout& l, const AnalyticalConstants& k, bool layer_names);
  const CacheCounter& op_sum_lookups() const { return op_sum_lookups_; }
  // partition_stages(w, l), for a workload that never changes (the SharedWorkload owning the memo).
  std::shared_ptr<const std::vector<Stage>> stages(const Workload& w, const Layout& l);
  // analytical_op_time of the stage's ops (sharded under l); an op's time depends on its shard
  // (tp, sp, cp, ep), the job's GPU, precision, framework and forward weight dtype, and the
  // constants, not on its stage.
  OpTimes op_times(const Stage& s, const Workload& w, const ResolvedJob& job, const Layout& l,
                   const AnalyticalConstants& k);
  // Lookups so far (--verbose): a hit found the stages or the op-time table of an earlier layout.
  const CacheCounter& partition_lookups() const { return partition_lookups_; }
  const CacheCounter& table_lookups() const { return table_lookups_; }

 private:
  CacheCounter partition_lookups_, table_lookups_, op_sum_lookups_, stash_lookups_;
  // (tp, pp, vp, cp, ep, sp, stage, recomputation, policy, convention) with the whole training state
  // checked on a hit.
  using StashKey = std::tuple<int, int, int, int, int, bool, int, int, const void*, const void*>;
  std::map<StashKey, std::pair<TrainingStateBytes, StashSums>> stashes_;
  struct SumsEntry {
    std::shared_ptr<std::vector<OpTime>> table;  // kept alive: its address is the key's
    std::shared_ptr<const StageOpSums> sums;
  };
  // (op-time table, pipeline depth, virtual stages, stage index, recomputation, selective policy,
  // layer names): the table fixes the shard (tp, cp, ep, sp) and how ops are timed, and
  // partition_stages puts the same ops on a stage of the same (shard, pp, vp) layout.
  using SumsKey = std::tuple<const void*, int, int, int, int, int, bool>;
  // Sums of recent layouts; past this many the memo starts over (each keeps a stage's layers).
  static constexpr std::size_t kKeepSums = 1024;
  std::map<SumsKey, SumsEntry> sums_;
  struct TimeTable {
    int tp, cp, ep;
    bool sp;
    const PrecisionPolicy* policy;
    const GpuSpec* gpu;
    Framework framework;
    std::optional<MemoryFormat> memory_format;
    bool xla;
    std::optional<bool> cuda_graphs, compile;
    double forward_weight_bytes;  // embedding lookups read the weights at this size
    const AttentionKernel* attention_kernel;
    const Fp8Recipe* fp8_recipe;
    AnalyticalConstants k;  // compared bytewise: doubles and pointers, no padding
    std::vector<bool> known;
    std::shared_ptr<std::vector<OpTime>> times;
  };
  // The default space walks context parallelism (4 values) inside each tensor x pipeline layout and
  // times each of them twice (the learned composition and the analytical one): with fewer tables
  // than that, every pipeline split recomputed every op's time.
  static constexpr std::size_t kKeepTables = 16;
  std::vector<TimeTable> tables_;  // most recent last
  TimeTable& table_of(const Workload& w, const ResolvedJob& job, const Layout& l, const AnalyticalConstants& k);

 private:
  struct Partition {
    int tp, pp, vp, cp, ep;
    bool sp;
    std::shared_ptr<const std::vector<Stage>> stages;
  };
  // A few recent layouts: a search meets each workload once per micro-batch step of its walk, with
  // the sharding and recomputation choices of one layout in a row.
  static constexpr std::size_t kKeep = 4;
  std::vector<Partition> recent_;  // most recent last
};

// The job's stages under its layout, and the times of a stage's ops: memoised when the job shares a
// search's workload.
OpTimes op_times_of(const Stage& s, const ResolvedJob& job, const Layout& l, const AnalyticalConstants& k);
std::shared_ptr<const StageOpSums> stage_op_sums_of(const Stage& s, const ResolvedJob& job, const Layout& l,
                                                    const AnalyticalConstants& k, bool layer_names);
std::shared_ptr<const std::vector<Stage>> stages_of(const ResolvedJob& job, const Layout& l);
// count_blocks(job.work()), without walking the ops when the workload is shared.
int blocks_of(const ResolvedJob& job);

}  // namespace ptp::predict
