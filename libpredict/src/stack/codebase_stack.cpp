#include "ptp/predict/codebase_stack.hpp"

#include "ptp/predict/job_fields.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {
constexpr const char* kBridgeOverlap =
    "Megatron-Bridge docs/training/communication-overlap.md: its performance recipes set CommOverlapConfig"
    "(tp_comm_overlap=True), which it applies only with TP > 1 and sequence parallelism";
constexpr const char* kBridgeDp =
    "Megatron-Bridge docs/training/communication-overlap.md: the distributed optimizer's reduce-scatter and "
    "all-gather overlap layer by layer (ddp.overlap_grad_reduce, ddp.overlap_param_gather)";
constexpr const char* kBridgeP2p =
    "Megatron-Bridge comm_overlap.py: overlap_p2p_comm under the interleaved schedule, batch_p2p_comm "
    "(sends not overlapped) without it";
constexpr const char* kNemoOverlap =
    "NeMo performance recipes (MegatronCommOverlapCallback, the same gates and defaults as Megatron-Bridge)";
constexpr const char* kTitanTp =
    "torchtitan parallelism.enable_async_tensor_parallel defaults to false: DTensor's TP collectives run "
    "between the GEMMs, not under them";
constexpr const char* kTitanFsdp =
    "torchtitan FSDP2: parameter all-gathers are prefetched and gradient reduce-scatters overlap the backward";
}  // namespace

const std::vector<CodebaseStackDefault>& codebase_stack_table() {
  using C = StackCondition;
  static const std::vector<CodebaseStackDefault> table = {
      {"megatron-bridge", "overlap.tp_comm", C::tensor_parallel_with_sp, true, kBridgeOverlap},
      {"megatron-bridge", "overlap.grad_reduce", C::always, true, kBridgeDp},
      {"megatron-bridge", "overlap.param_gather", C::always, true, kBridgeDp},
      {"megatron-bridge", "overlap.p2p", C::interleaved_pipeline, true, kBridgeP2p},
      {"megatron-bridge", "overlap.p2p", C::plain_pipeline, false, kBridgeP2p},
      {"nemo", "overlap.tp_comm", C::tensor_parallel_with_sp, true, kNemoOverlap},
      {"nemo", "overlap.grad_reduce", C::always, true, kNemoOverlap},
      {"nemo", "overlap.param_gather", C::always, true, kNemoOverlap},
      {"nemo", "overlap.p2p", C::interleaved_pipeline, true, kNemoOverlap},
      {"nemo", "overlap.p2p", C::plain_pipeline, false, kNemoOverlap},
      {"torchtitan", "overlap.tp_comm", C::tensor_parallel, false, kTitanTp},
      {"torchtitan", "overlap.grad_reduce", C::always, true, kTitanFsdp},
      {"torchtitan", "overlap.param_gather", C::always, true, kTitanFsdp},
  };
  return table;
}

namespace {
bool holds(StackCondition when, const JobSpec& job) {
  const auto& p = job.parallelism;
  switch (when) {
    case StackCondition::always:
      return true;
    case StackCondition::tensor_parallel_with_sp:
      return p.tensor > 1 && p.sequence_parallel;
    case StackCondition::tensor_parallel:
      return p.tensor > 1;
    case StackCondition::interleaved_pipeline:
      return p.pipeline > 1 && p.virtual_pipeline > 1;
    case StackCondition::plain_pipeline:
      return p.pipeline > 1 && p.virtual_pipeline <= 1;
  }
  return false;
}
}  // namespace

std::vector<const CodebaseStackDefault*> apply_codebase_stack(JobSpec& job) {
  std::vector<const CodebaseStackDefault*> used;
  if (job.codebase.empty()) return used;
  for (const auto& row : codebase_stack_table()) {
    if (job.codebase != row.codebase || !holds(row.when, job)) continue;
    const JobField& field = job_field(row.field);
    if (!std::holds_alternative<std::monostate>(field.get(job))) continue;
    field.set(job, row.value);
    used.push_back(&row);
  }
  return used;
}

}  // namespace ptp::predict
