// One GPU's share of each op under tensor, context and expert parallelism, and the split of
// transformer blocks into pipeline stages. Every decision reads the op's parallel roles
// (Op::tp_role, Op::expert_split, Op::in_block), which the model family set when it built the op;
// an op no family marked is replicated, which is what Megatron does with modules it does not
// parallelise.
#include <algorithm>
#include <map>
#include <string>

#include "ptp/predict/detail/parallelism.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

Op shard_op(const Op& op, const Layout& l) {
  Op o = op;
  const double t = l.tp;
  // act scales the per-token work (FLOPs, elements, saved activations); params scales weights.
  double act = 1.0, params = 1.0, in = 1.0, out = 1.0, saved = 1.0;
  if (op.expert_split != ExpertSplit::none) {
    // Experts are split over EP ranks, not TP (expert tensor parallel 1). Balanced routing: each
    // rank runs its E/ep experts on ep x its tokens, i.e. the same FLOPs as without EP. Under
    // sequence parallel a TP rank routes only its 1/tp of the tokens.
    const double tok = l.sp ? 1 / t : 1;
    act = in = out = saved = tok;
    params = 1.0 / l.ep;
    // The family concatenates the experts along n (up) or k (down); a rank holds E/ep of them,
    // each seeing ep ranks' worth of routed rows.
    if (op.expert_split == ExpertSplit::n || op.expert_split == ExpertSplit::k) {
      if (op.expert_split == ExpertSplit::k) o.k /= l.ep;
      else o.n /= l.ep;
      o.m *= l.ep * tok;
      // One kernel per local expert (the convention's gemm_per_expert), each with its own latency.
      if (l.gemm_per_expert) o.repeats = std::max(1.0, op.weight_groups / l.ep);
    }
  } else {
    switch (op.tp_role) {
      case TpRole::column:  // W split by output features; input replicated (gathered under SP)
        act = out = params = 1 / t;
        saved = l.sp ? 1 / t : 1;
        o.n /= t;
        break;
      case TpRole::row:  // W split by input features; output is a partial sum reduced afterwards
        act = in = saved = params = 1 / t;
        o.k /= t;
        break;
      case TpRole::split:  // heads split over TP ranks; a head's own weights (Mamba conv, A, D) go with it
        act = in = out = saved = params = 1 / t;
        if (op.kind == OpKind::fused_attention || op.kind == OpKind::attention_bmm) o.batch /= t;
        break;
      case TpRole::vocab:
        if (op.kind == OpKind::embedding) {
          params = 1 / t;  // each rank looks up its vocab slice; output all-reduced
        } else {
          act = in = saved = 1 / t;  // vocab-parallel cross entropy over the sharded logits
        }
        break;
      case TpRole::replicated:
        if (l.sp) act = in = out = saved = 1 / t;  // norms, dropout, residuals on the sequence shard
        break;
    }
  }
  // Context parallelism: every rank holds 1/cp of the tokens (attention: its queries against all
  // keys, load-balanced over the causal mask), weights are replicated.
  const double c = 1.0 / l.cp;
  o.fwd_flops *= act * c;
  o.bwd_flops *= act * c;
  o.elements_in *= in * c;
  o.elements_out *= out * c;
  o.saved *= saved * c;
  o.eager_extra_saved *= saved * c;
  o.saved_mask *= saved * c;
  o.traffic.scale(act * c);
  o.params *= params;
  if (op.kind == OpKind::gemm || op.kind == OpKind::fused_attention || op.kind == OpKind::attention_bmm) o.m *= c;
  return o;
}

namespace {
// Ops are grouped in units by their layer index; a unit is a transformer block when its ops were
// built inside a block (Op::in_block).
struct Unit {
  std::vector<const Op*> ops;
  bool block = false, moe = false, attention = false, mlp = false;
  // A block with attention and an MLP is two TP sub-layers; a hybrid layer (one of them, or a
  // Mamba-2 mixer, whose projections are neither) is one.
  int tp_sublayers() const { return block ? std::max(1, int(attention) + int(mlp)) : 0; }
};
std::vector<Unit> units_of(const Workload& w) {
  std::map<int, Unit> by_layer;
  for (const auto& op : w.ops) {
    auto& u = by_layer[op.layer];
    u.ops.push_back(&op);
    if (op.in_block) u.block = true;
    if (op.expert_split != ExpertSplit::none) u.moe = true;
    if (op.projection == Projection::attention) u.attention = true;
    if (op.projection == Projection::mlp) u.mlp = true;
  }
  std::vector<Unit> units;
  for (auto& kv : by_layer) units.push_back(std::move(kv.second));
  return units;
}
}  // namespace

int count_blocks(const Workload& w) {
  int n = 0;
  for (const auto& u : units_of(w)) n += u.block;
  return n;
}

PipelineSplit pipeline_split(int blocks, int pp, int vp) {
  PipelineSplit s;
  s.blocks = blocks;
  const int chunks = pp * vp;
  s.divisible = blocks % chunks == 0;
  if (!s.divisible && chunks > 1 && (blocks + 2) % chunks == 0) {
    s.embedding_as_layer = true;
    s.divisible = true;
  }
  s.uneven = !s.divisible && blocks >= chunks;
  return s;
}

int PipelineSplit::chunk_of_block(int b, int chunks) const {
  if (uneven) {
    // The first blocks % chunks chunks take one block more than the others.
    const int light = blocks / chunks, heavy_chunks = blocks % chunks, heavy_blocks = heavy_chunks * (light + 1);
    return b < heavy_blocks ? b / (light + 1) : heavy_chunks + (b - heavy_blocks) / light;
  }
  // Slot of each block in the chunk order; with embedding_as_layer the embedding takes slot 0.
  const int slots = embedding_as_layer ? blocks + 2 : blocks;
  const int per_chunk = std::max(1, (slots + chunks - 1) / chunks);
  return std::min(chunks - 1, (b + (embedding_as_layer ? 1 : 0)) / per_chunk);
}

std::vector<Stage> partition_stages(const Workload& w, const Layout& l) {
  const auto units = units_of(w);
  std::vector<int> block_units;
  for (std::size_t i = 0; i < units.size(); ++i)
    if (units[i].block) block_units.push_back(static_cast<int>(i));
  const int chunks = l.pp * l.vp;
  const int blocks = static_cast<int>(block_units.size());
  const auto split = pipeline_split(blocks, l.pp, l.vp);
  std::vector<int> chunk_of_unit(units.size(), 0);
  for (int b = 0; b < blocks; ++b)
    chunk_of_unit[static_cast<std::size_t>(block_units[static_cast<std::size_t>(b)])] = split.chunk_of_block(b, chunks);
  // Non-block units join the next block's chunk (embeddings) or, after the last block, the last chunk.
  int next_chunk = chunks - 1;
  for (std::size_t i = units.size(); i-- > 0;) {
    if (units[i].block) next_chunk = chunk_of_unit[i];
    else chunk_of_unit[i] = blocks == 0 ? 0 : next_chunk;
  }
  if (blocks > 0) {
    for (std::size_t i = static_cast<std::size_t>(block_units.back()) + 1; i < units.size(); ++i) chunk_of_unit[i] = chunks - 1;
  }
  std::vector<Stage> stages(static_cast<std::size_t>(l.pp));
  for (std::size_t i = 0; i < stages.size(); ++i) stages[i].index = static_cast<int>(i);
  std::vector<double> block_params(units.size(), 0.0);
  for (std::size_t i = 0; i < units.size(); ++i) {
    auto& st = stages[static_cast<std::size_t>(chunk_of_unit[i] % l.pp)];
    for (const Op* op : units[i].ops) {
      st.ops.push_back(shard_op(*op, l));
      st.source.push_back(static_cast<std::size_t>(op - w.ops.data()));
      if (op->sparse_update && !op->frozen) {
        st.sparse_params += st.ops.back().params;
        st.sparse_touched += st.ops.back().m * st.ops.back().n;
        continue;
      }
      const bool linear = op->in_block && op->projection != Projection::none;
      if (linear && !op->high_precision) st.linear_params += st.ops.back().params;
      if (op->frozen) {
        st.frozen_params += st.ops.back().params;
        if (linear) st.frozen_linear_params += st.ops.back().params;
        if (op->stored_4bit) {
          st.frozen_4bit_params += st.ops.back().params;
          // bitsandbytes/torchao quantise each nn.Linear apart: a fused op's projections (gate and up,
          // experts) dequantise one at a time.
          const Op& held = st.ops.back();
          st.largest_4bit_params =
              std::max(st.largest_4bit_params, held.params / (held.fused_projections * held.weight_groups));
        }
        if (op->expert_split != ExpertSplit::none) st.frozen_expert_params += st.ops.back().params;
        block_params[i] += st.ops.back().params;
        continue;
      }
      st.params += st.ops.back().params;
      block_params[i] += st.ops.back().params;
      if (op->expert_split != ExpertSplit::none) st.expert_params += st.ops.back().params;
    }
    st.blocks += units[i].block;
    st.moe_blocks += units[i].moe;
    st.tp_sublayers += units[i].tp_sublayers();
    st.largest_block_params = std::max(st.largest_block_params, block_params[i]);
  }
  return stages;
}

}  // namespace ptp::predict
