#pragma once
// What the backward redoes under the job's activation_checkpointing, per op of a stage: one answer
// read by the step time (the recomputed forward) and by the memory estimate (what stays stashed).
#include <vector>

#include "ptp/predict/workload.hpp"
#include "ptp/vocab/memory_convention.hpp"
#include "ptp/vocab/training_layout.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

// Share (0..1) of each op's forward that the backward reruns. Ops outside the repeated blocks are
// never redone. Full: every block op. Selective: as the framework's convention does it
// (SelectiveRecompute): the core attention (the ops on attention scores, or the fused attention
// kernel), or everything but the fused attention kernel and every second matmul of a block (a fused
// projection counts as its parts: QKV as q, k, v).
std::vector<double> forward_redone(const std::vector<Op>& ops, Recompute r, SelectiveRecompute s);

// Whether the policy checkpoints whole blocks: each block keeps its input and the outputs of what
// it does not redo (full recompute; torchtitan's SAC), rather than each op keeping what it saves.
bool checkpoints_blocks(Recompute r, SelectiveRecompute s);

}  // namespace ptp::predict
