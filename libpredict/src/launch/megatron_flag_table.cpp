// The Megatron-LM flags ptp reads, one row each: the flag, whether it takes a value, what it becomes
// (docs/launch-import.md says the same at more length; a test keeps the two listing the same flags).
// Names: megatron/training/arguments.py at NVIDIA/Megatron-LM 67f3515c8a0539d38c23f59dd8b85efdcbb3af3d.
#include "megatron_flags.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::launch {

const std::vector<MegatronFlag>& megatron_flag_table() {
  using T = Takes;
  static const std::vector<MegatronFlag> table = {
      // The model's sizes (megatron_model.cpp), used when the job names no model: and checked when it does.
      {"--num-layers", T::value, "model layers"},
      {"--hidden-size", T::value, "model hidden"},
      {"--ffn-hidden-size", T::value,
       "model ffn (left out: 4 x hidden, with --swiglu 8/3 x hidden down to a multiple of 64)"},
      {"--num-attention-heads", T::value, "model heads"},
      {"--group-query-attention", T::nothing, "model kv_heads from --num-query-groups"},
      {"--num-query-groups", T::value, "model kv_heads (with --group-query-attention)"},
      {"--kv-channels", T::value, "model head_dim"},
      {"--swiglu", T::nothing, "model activation swiglu"},
      {"--squared-relu", T::nothing, "model activation relu2"},
      {"--normalization", T::value, "model norm (LayerNorm layernorm, RMSNorm rmsnorm)"},
      {"--position-embedding-type", T::value,
       "model positions (learned_absolute learned; rope, yarn, mrope rotary; none)"},
      {"--max-position-embeddings", T::value, "model max_positions"},
      {"--vocab-size", T::value, "model vocab, padded as Megatron pads it"},
      {"--padded-vocab-size", T::value, "model vocab as given"},
      {"--make-vocab-size-divisible-by", T::value, "the vocabulary's padding multiple, times the tensor-parallel size"},
      {"--untie-embeddings-and-output-weights", T::nothing, "model tie_embeddings false"},
      {"--disable-bias-linear", T::nothing, "model bias false"},
      {"--add-qkv-bias", T::nothing, "model qkv_bias true"},
      {"--hidden-dropout", T::value, "model dropout (false when this and --attention-dropout are 0)"},
      {"--attention-dropout", T::value, "model dropout"},
      {"--num-experts", T::value, "model num_experts"},
      {"--moe-router-topk", T::value, "model experts_per_token"},
      {"--moe-ffn-hidden-size", T::value, "model expert_ffn"},
      {"--moe-shared-expert-intermediate-size", T::value, "model shared_expert_ffn"},
      // Layout.
      {"--tensor-model-parallel-size", T::value, "parallelism.tensor"},
      {"--pipeline-model-parallel-size", T::value, "parallelism.pipeline"},
      {"--num-layers-per-virtual-pipeline-stage", T::value, "parallelism.virtual_pipeline = layers / pipeline / this"},
      {"--num-virtual-stages-per-pipeline-rank", T::value, "parallelism.virtual_pipeline"},
      {"--context-parallel-size", T::value, "parallelism.context"},
      {"--expert-model-parallel-size", T::value, "parallelism.expert"},
      {"--sequence-parallel", T::nothing,
       "sequence_parallel (off at tensor-parallel size 1, as Megatron turns it off)"},
      {"--use-distributed-optimizer", T::nothing, "sharding zero1"},
      {"--use-torch-fsdp2", T::nothing, "sharding fsdp"},
      {"--use-megatron-fsdp", T::nothing, "sharding from --data-parallel-sharding-strategy"},
      {"--data-parallel-sharding-strategy", T::value,
       "no_shard none, optim zero1, optim_grads zero2, optim_grads_params zero3"},
      // Batch and run.
      {"--micro-batch-size", T::value, "batch_size"},
      {"--global-batch-size", T::value, "global_batch_size"},
      {"--rampup-batch-size", T::value, "not modelled: a warning (the final global batch is predicted)"},
      {"--seq-length", T::value, "seq_len"},
      {"--train-iters", T::value, "run.steps"},
      {"--train-samples", T::value, "run.tokens = samples x --seq-length"},
      // Precision.
      {"--bf16", T::nothing, "precision bf16"},
      {"--fp16", T::nothing, "precision fp16"},
      {"--fp8-format", T::value, "precision fp8"},
      {"--fp8-recipe", T::value,
       "fp8_recipe (delayed, tensorwise, mxfp8 tensorwise; blockwise, custom tensorwise with a warning)"},
      {"--fp4-format", T::value, "precision fp4"},
      {"--first-last-layers-bf16", T::nothing, "low_precision.bf16_first_layers / bf16_last_layers"},
      {"--num-layers-at-start-in-bf16", T::value, "low_precision.bf16_first_layers (default 1)"},
      {"--num-layers-at-end-in-bf16", T::value, "low_precision.bf16_last_layers (default 1)"},
      // Recomputation.
      {"--recompute-granularity", T::value, "activation_checkpointing (selective, full)"},
      {"--recompute-activations", T::nothing, "activation_checkpointing selective (the older spelling)"},
      {"--recompute-method", T::value,
       "with full: block recomputes --recompute-num-layers per stage (a warning when not all)"},
      {"--recompute-num-layers", T::value, "with --recompute-method block: layers recomputed per stage"},
      // Overlaps.
      {"--overlap-grad-reduce", T::nothing, "overlap.grad_reduce"},
      {"--overlap-param-gather", T::nothing, "overlap.param_gather"},
      {"--tp-comm-overlap", T::nothing, "overlap.tp_comm"},
      {"--no-overlap-p2p-communication", T::nothing, "overlap.p2p false (default: on with interleaving)"},
      {"--overlap-p2p-communication", T::nothing, "overlap.p2p (the flag before Megatron made it the default)"},
      {"--overlap-moe-expert-parallel-comm", T::nothing, "overlap.a2a"},
      // Kernels and the optimizer.
      {"--use-flash-attn", T::nothing, "attention_kernel flash2"},
      {"--attention-backend", T::value,
       "flash attention_kernel flash2, fused cudnn, unfused/local model attention standard"},
      {"--cross-entropy-loss-fusion", T::nothing, "memory.cross_entropy fused (left out: unfused)"},
      {"--optimizer", T::value, "optimizer (adam adamw, sgd momentum)"},
      {"--sgd-momentum", T::value, "with --optimizer sgd: 0 is plain sgd"},
      {"--enable-cuda-graph", T::nothing, "cuda_graphs"},
      {"--external-cuda-graph", T::nothing, "cuda_graphs"},
      {"--cuda-graph-impl", T::value, "cuda_graphs (local, transformer_engine; none false)"},
  };
  return table;
}

}  // namespace ptp::predict::launch
