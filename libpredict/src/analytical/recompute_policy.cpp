#include "recompute_policy.hpp"

#include <algorithm>

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {

// Megatron's checkpointed core attention: the score ops, or the fused attention kernel that
// replaces them.
bool core_attention(const Op& op) {
  return (op.kind == OpKind::attention_bmm && op.on_scores) || op.kind == OpKind::softmax ||
         (op.kind == OpKind::elementwise && op.on_scores) || op.kind == OpKind::fused_attention;
}

// Output widths of the matmuls a GEMM op stands for, in forward order: QKV as q, k, v (k and v at
// the narrowest width under GQA), gate+up as two halves.
std::vector<double> matmul_widths(const Op& op) {
  const int parts = std::max(1, static_cast<int>(op.fused_projections));
  if (parts == 1) return {op.n};
  if (op.narrowest_output > 0 && op.narrowest_output * (parts - 1) < op.n) {
    std::vector<double> w{op.n - (parts - 1) * op.narrowest_output};
    w.resize(parts, op.narrowest_output);
    return w;
  }
  return std::vector<double>(parts, op.n / parts);
}

// torchtitan's policy counts matmuls per block and keeps the odd-numbered ones' outputs.
std::vector<double> every_other_matmul(const std::vector<Op>& ops) {
  std::vector<double> redone(ops.size(), 0);
  int layer = -1, count = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    if (!op.in_block) continue;
    if (op.layer != layer) layer = op.layer, count = 0;
    if (op.kind == OpKind::fused_attention) continue;
    if (op.kind != OpKind::gemm) {
      redone[i] = 1;
      continue;
    }
    double total = 0, rerun = 0;
    for (double w : matmul_widths(op)) {
      total += w;
      if (++count % 2 == 0) rerun += w;
    }
    redone[i] = total > 0 ? rerun / total : 0;
  }
  return redone;
}

}  // namespace

std::vector<double> forward_redone(const std::vector<Op>& ops, Recompute r, SelectiveRecompute s) {
  switch (r) {
    case Recompute::none:
      return std::vector<double>(ops.size(), 0);
    case Recompute::full: {
      std::vector<double> redone(ops.size(), 0);
      for (std::size_t i = 0; i < ops.size(); ++i) redone[i] = ops[i].in_block ? 1 : 0;
      return redone;
    }
    case Recompute::selective:
      break;
  }
  switch (s) {
    case SelectiveRecompute::every_other_matmul:
      return every_other_matmul(ops);
    case SelectiveRecompute::core_attention:
      break;
  }
  std::vector<double> redone(ops.size(), 0);
  for (std::size_t i = 0; i < ops.size(); ++i) redone[i] = ops[i].in_block && core_attention(ops[i]) ? 1 : 0;
  return redone;
}

bool checkpoints_blocks(Recompute r, SelectiveRecompute s) {
  switch (r) {
    case Recompute::none:
      return false;
    case Recompute::full:
      return true;
    case Recompute::selective:
      break;
  }
  switch (s) {
    case SelectiveRecompute::every_other_matmul:
      return true;
    case SelectiveRecompute::core_attention:
      break;
  }
  return false;
}

}  // namespace ptp::predict
