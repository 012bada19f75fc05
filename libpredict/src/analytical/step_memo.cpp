#include "step_memo.hpp"

#include <algorithm>

namespace ptp {

std::shared_ptr<const std::vector<Stage>> StepMemo::stages(const Workload& w, const Layout& l) {
  // partition_stages reads these layout fields only (shard_op: tp, sp, cp, ep; the split: pp, vp).
  auto same = [&](const Partition& p) {
    return p.tp == l.tp && p.pp == l.pp && p.vp == l.vp && p.cp == l.cp && p.ep == l.ep && p.sp == l.sp;
  };
  auto it = std::find_if(recent_.begin(), recent_.end(), same);
  if (it != recent_.end()) {
    std::rotate(it, it + 1, recent_.end());
    return recent_.back().stages;
  }
  if (recent_.size() == kKeep) recent_.erase(recent_.begin());
  recent_.push_back({l.tp, l.pp, l.vp, l.cp, l.ep, l.sp,
                     std::make_shared<const std::vector<Stage>>(partition_stages(w, l))});
  return recent_.back().stages;
}

std::shared_ptr<const std::vector<Stage>> stages_of(const ResolvedJob& job, const Layout& l) {
  if (job.shared) return job.shared->memo->stages(job.shared->workload, l);
  return std::make_shared<const std::vector<Stage>>(partition_stages(job.workload, l));
}

int blocks_of(const ResolvedJob& job) { return job.shared ? job.shared->blocks : count_blocks(job.workload); }

}  // namespace ptp
