#pragma once
// What the step model derives from one workload under one layout, kept for the next prediction of
// the same workload. A search predicts a workload under thousands of layouts, and consecutive
// configurations often differ only in what these do not depend on (sharding, recomputation,
// precision): the pipeline partition copies and shards every op, and the learned path composes the
// step twice and checks memory once more, so without the memo each configuration partitions the
// model three times. Entries are the very values the direct computation returns (same code, same
// order of summation), so a memoised prediction is identical to a fresh one.
#include <memory>
#include <vector>

#include "parallelism.hpp"

namespace ptp {

class StepMemo {
 public:
  // partition_stages(w, l), for a workload that never changes (the SharedWorkload owning the memo).
  std::shared_ptr<const std::vector<Stage>> stages(const Workload& w, const Layout& l);

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

// The job's stages under its layout: memoised when the job shares a search's workload.
std::shared_ptr<const std::vector<Stage>> stages_of(const ResolvedJob& job, const Layout& l);
// count_blocks(job.work()), without walking the ops when the workload is shared.
int blocks_of(const ResolvedJob& job);

}  // namespace ptp
