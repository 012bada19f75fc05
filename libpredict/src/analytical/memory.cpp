// Per-GPU memory: the copies of the training state the job's memory convention keeps (weights,
// FP32 master, gradients, optimizer state, FP8 weight caches), stashed activations and library
// workspaces, then the allocator's slack and the runtime outside it, for the worst pipeline stage. Tensor/expert parallelism shrink the stage's
// weights before ZeRO/FSDP divide them over the data-parallel group; activations are one micro-
// batch's stash times the micro-batches a 1F1B stage holds, reduced by recomputation.
#include <algorithm>

#include "ptp/predict/detail/parallelism.hpp"
#include "ptp/vocab/attention_kernel.hpp"
#include "recompute_policy.hpp"
#include "step_memo.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {
// FP8 recipes that keep the FP8 casts of GEMM inputs (Transformer Engine) stash those instead of the
// 16-bit tensors.
bool stashes_fp8_input(const Op& op, const PrecisionPolicy& p, const TrainingStateBytes& st) {
  return p.fp8_scaling && st.computation.stashes_fp8_inputs && op.kind == OpKind::gemm && !op.high_precision;
}
// RoPE keeps only its frequencies; q and k stay alive only while another view holds the projection
// output (litgpt's fused qkv, through the value passed to attention). Repeating grouped K/V heads
// copies q, k and v alike (litgpt's expand + reshape), and the fused output is freed.
bool rope_input_kept(const Op& op, const TrainingStateBytes& st) {
  return st.computation.rope_keeps_input && !(op.grouped_kv && st.computation.repeats_kv_heads);
}
// Bytes an op stashes for backward. The loss holds the logits as the convention's cross-entropy does;
// a fused attention kernel holds K/V at the heads the stack keeps; eager norms add the FP32 copy of
// their input.
double saved_bytes(const Op& op, const PrecisionPolicy& p, const TrainingStateBytes& st) {
  if (op.kind == OpKind::loss) return op.saved * logits_bytes(st.computation.cross_entropy, p.activation_bytes);
  if (op.rotary && !rope_input_kept(op, st)) return 0;
  const double kept = op.saved * (st.computation.repeats_kv_heads ? 1 : 1 - op.repeated_kv_share);
  double bytes = kept * (stashes_fp8_input(op, p, st) ? 1.0 : p.activation_bytes);
  if (op.kind == OpKind::norm && !op.batch_norm && st.computation.eager_kernels && p.norm_softmax_bytes < 4) bytes += op.saved * 4;
  if (st.computation.eager_kernels) bytes += op.eager_extra_saved * p.activation_bytes;
  return bytes + op.saved_mask;
}

// The share of a fused attention kernel's stash that is its inputs q, k, v (the rest is its output),
// with K/V at the heads the stack keeps.
double attention_inputs_share(const Op& op, const TrainingStateBytes& st) {
  const double repeated = st.computation.repeats_kv_heads ? 0 : op.repeated_kv_share * op.saved;
  return (op.elements_in - repeated) / (op.saved - repeated);
}

// Activation bytes one micro-batch leaves stashed on this stage, and the extra working set while
// one block's forward is redone in the backward.
struct Stash {
  double kept = 0, working = 0;
};
StashSums stash_sums(const Stage& s, const Layout& l, const PrecisionPolicy& p, const TrainingStateBytes& ts) {
  const auto redone = forward_redone(s.ops, l.recompute, ts.computation.selective);
  const bool keeps_outputs = checkpoints_blocks(l.recompute, ts.computation.selective);
  StashSums st;
  bool attention_output_kept = false;
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    double bytes = saved_bytes(op, p, ts);
    // The output projection stashes the fused attention kernel's output, which the kernel keeps
    // too: one tensor, unless the projection stashes its FP8 cast or the kernel's forward is redone.
    if (op.kind == OpKind::fused_attention) attention_output_kept = redone[i] == 0;
    if (op.reads_attention_output && attention_output_kept && !stashes_fp8_input(op, p, ts)) bytes = 0;
    if (op.in_block) st.block_saved += bytes;
    if (!keeps_outputs || !op.in_block) {
      // A checkpointed fused attention kernel keeps its inputs (q, k, v) as the checkpoint's, not
      // its output; the score ops it stands for keep nothing.
      const double kept_share = op.kind == OpKind::fused_attention && redone[i] > 0 && op.saved > 0
                                    ? attention_inputs_share(op, ts)
                                    : 1 - redone[i];
      st.kept += bytes * kept_share;
      st.rebuilt += bytes * (1 - kept_share);
      continue;
    }
    // A checkpointed block keeps its input and the outputs of the ops the backward does not redo
    // (torchtitan's SAC caches them; full recompute caches none).
    if (op.kind == OpKind::gemm || op.kind == OpKind::fused_attention)
      st.kept += op.elements_out * (1 - redone[i]) * p.activation_bytes;
  }
  return st;
}

// `memo`: the shared workload's, where the stage's sums are kept (null: none).
Stash activation_stash(const Stage& s, const Layout& l, const PrecisionPolicy& p, const TrainingStateBytes& ts,
                       StepMemo* memo) {
  const bool keeps_outputs = checkpoints_blocks(l.recompute, ts.computation.selective);
  StashSums sums;
  if (const StashSums* kept = memo ? memo->find_stash(s, l, p, ts) : nullptr) {
    sums = *kept;
  } else {
    sums = stash_sums(s, l, p, ts);
    if (memo) memo->keep_stash(s, l, p, ts, sums);
  }
  Stash st;
  st.kept = sums.kept;
  const double block_saved = sums.block_saved, rebuilt = sums.rebuilt;
  const double blocks = std::max(1, s.blocks);
  if (keeps_outputs) {
    const double block_input = l.tokens / l.cp / (l.sp ? l.tp : 1) * l.hidden;
    st.kept += s.blocks * (l.hidden > 0 ? block_input * p.activation_bytes : 0);
    st.working = block_saved / blocks;
  } else {
    st.working = rebuilt / blocks;
  }
  return st;
}
// A 4-bit weight is dequantised whole for its matmul, forward and backward (bitsandbytes' MatMul4Bit,
// torchao's NF4 linear): the largest one's copy at the compute dtype is live at the backward's peak
// (the LM head's, when it is quantised, comes first in the backward). Quantised from an FP16 copy
// (finetune.quantized_from_fp16) it dequantises to FP16 first and is cast: both copies are live.
double dequantized_weight_bytes(const Stage& s, const ResolvedJob& job) {
  if (s.largest_4bit_params <= 0) return 0;
  const auto& p = *job.policy;
  const bool fp16_compute = p.activation_bytes == 2 && p.half_dtype == "fp16";
  const double staged = job.job.finetune.quantized_from_fp16 && !fp16_compute ? 2 : 0;
  return s.largest_4bit_params * (p.activation_bytes + staged);
}
}  // namespace

MemoryEstimate stage_memory(const Stage& s, int stage_index, const ResolvedJob& job, const Layout& l,
                            const AnalyticalConstants& k) {
  const auto& p = *job.policy;
  const auto& st = job.state;
  const auto& j = job.job;
  const double dense = s.params - s.expert_params, expert = s.expert_params;
  const double dense_group = l.sharding == Sharding::hsdp ? hsdp_shard_group(l).size : l.dp * l.cp;
  const double expert_group = expert_dp_group(l).size;
  auto sharded = [&](bool on) { return on ? dense / dense_group + expert / expert_group : dense + expert; };
  MemoryEstimate m;
  m.convention = st.convention ? st.convention->id : std::string();
  m.weights = sharded(l.shards_params()) * st.param;
  // Frozen weights (LoRA base) at the stored dtype (QLoRA: the block projections in 4 bits), sharded
  // like the rest under ZeRO-3/FSDP; no master copy or optimizer state, and no gradient unless they
  // share a flat parameter with trainable weights (memory.frozen_grads, below).
  const double frozen_dense = s.frozen_params - s.frozen_expert_params, frozen_expert = s.frozen_expert_params;
  const double frozen_held =
      l.shards_params() ? frozen_dense / dense_group + frozen_expert / expert_group : s.frozen_params;
  const double quantized_share =
      job.quantized_base_bytes > 0 && s.frozen_params > 0 ? s.frozen_4bit_params / s.frozen_params : 0;
  m.weights += frozen_held * ((1 - quantized_share) * st.param + quantized_share * job.quantized_base_bytes);
  // FSDP materialises the current block's and the prefetched next block's full weights at the
  // compute dtype; under a pipeline schedule the whole stage stays gathered for the step (see dp_comm.cpp).
  const double gathered = l.pp > 1 ? s.params + s.frozen_params : 2 * s.largest_block_params;
  if (l.shards_params()) m.weights += gathered * (p.half_precision ? std::min(st.param, 2.0) : st.param);
  m.weights += s.sparse_params * st.param;
  m.master_weights = sharded(l.shards_optimizer()) * st.master;
  // Gradients reduced only after the last micro-batch stay unsharded until then: under a pipeline
  // schedule (torch.distributed.pipelining turns gradient sync off until the last micro-batch, as
  // the weights stay gathered above) and under FSDP no_sync accumulation (memory.grad_sync: step).
  const bool grads_wait_for_step = l.pp > 1 || (j.memory.grad_sync == GradSync::step && l.microbatches > 1);
  const bool grads_sharded = l.shards_grads() && !grads_wait_for_step;
  m.gradients = sharded(grads_sharded) * st.grad;
  // Frozen block projections sharing a flat parameter with the adapters (memory.frozen_grads) get
  // gradients too; the embeddings and head sit in wrap units with nothing trainable and get none.
  if (j.memory.frozen_grads) m.gradients += s.frozen_linear_params / (grads_sharded ? dense_group : 1) * st.grad;
  m.optimizer_state = sharded(l.shards_optimizer()) * optimizer_state_tensors(j.optimizer) * st.optimizer_state;
  // Transformer Engine's FP8 weight caches are per TP/EP shard, outside the optimizer's sharding.
  m.fp8_weight_copies = s.linear_params * st.fp8_weight_copies;
  const Stash stash = activation_stash(s, l, p, st, job.shared ? job.shared->memo.get() : nullptr);
  const double in_flight = in_flight_microbatches(l.pp, l.vp, l.microbatches, stage_index);
  m.activations = stash.kept * in_flight + stash.working;
  m.workspace = (job.gpu->sm_version() >= kAsyncTensorCoreSm ? k.cublas_workspace_async_tc_bytes : k.cublas_workspace_bytes) +
                dequantized_weight_bytes(s, job);
  m.allocated_bytes = m.weights + m.master_weights + m.gradients + m.optimizer_state + m.fp8_weight_copies +
                      m.activations + m.workspace;
  m.reserved_bytes = m.allocated_bytes * (1 + k.allocator_slack);
  m.runtime_bytes = k.cuda_context_bytes + (j.cluster.num_gpus > 1 ? k.nccl_buffer_bytes : 0);
  m.per_gpu_bytes = m.reserved_bytes + m.runtime_bytes;
  m.capacity_bytes = job.gpu->memory_bytes();
  m.fits = m.per_gpu_bytes <= m.capacity_bytes;
  m.near_capacity = m.fits && m.per_gpu_bytes > m.capacity_bytes * (1 - kMemoryHeadroom);
  return m;
}

MemoryEstimate estimate_memory(const ResolvedJob& job, const AnalyticalConstants& k) {
  const Layout l = make_layout(job);
  const auto shared_stages = stages_of(job, l);
  const std::vector<Stage>& stages = *shared_stages;
  MemoryEstimate worst;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const auto m = stage_memory(stages[i], static_cast<int>(i), job, l, k);
    if (i == 0 || m.per_gpu_bytes > worst.per_gpu_bytes) worst = m;
  }
  return worst;
}

}  // namespace ptp::predict
