#pragma once
// The workload: the list of ops one GPU runs for one micro-batch, with shapes, FLOPs and element
// counts. Bytes are not stored: they depend on the precision policy and are derived in features.
#include <cstddef>
#include <string>
#include <vector>

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

enum class OpKind { gemm, attention_bmm, fused_attention, conv, norm, softmax, elementwise, embedding, pooling, rnn, loss };
inline constexpr std::size_t kOpKindCount = static_cast<std::size_t>(OpKind::loss) + 1;  // loss: keep it the last kind
const char* op_kind_name(OpKind k);

// How tensor parallelism divides an op (Megatron-LM conventions). The model family that builds the
// op says which; sharding reads only this field, never the op's name.
//   column: weight split by output features (n), input replicated (QKV, MLP up, LM head)
//   row: weight split by input features (k), output a partial sum reduced afterwards (out, down)
//   split: work on head- or ffn-sharded tensors (attention, softmax, RoPE, the MLP activation)
//   vocab: vocabulary-parallel token embedding or cross entropy
//   replicated: every TP rank runs it in full (norms, residuals; split over the sequence under SP)
enum class TpRole { replicated, column, row, split, vocab };
const char* tp_role_name(TpRole r);

// How expert parallelism divides an op that belongs to the routed experts: not at all (a dense op),
// by routed tokens only (dispatch, activation, combine), or over the experts' concatenated weights
// along n (up projections) or k (down projections).
enum class ExpertSplit { none, routed, n, k };
const char* expert_split_name(ExpertSplit e);

// Which class of weight projection a GEMM is, for fine-tuning methods that pick projections by
// class (LoRA targets: PEFT's q/k/v/o as attention, gate/up/down as mlp). The family says which.
enum class Projection { none, attention, mlp };

// Elements a kernel chain moves per pass, at the policy's activation dtype and in FP32, where that is
// not its inputs and outputs once: a chunked scan writes FP32 intermediates (chunk states, C B^T) and
// reads them back, and its backward recomputes part of the forward. Unset (all 0): the roofline's
// inputs + outputs (+ weights), twice that in backward. Scales with the op's per-token work.
struct KernelTraffic {
  double fwd = 0, fwd_fp32 = 0, bwd = 0, bwd_fp32 = 0;
  bool set() const { return fwd > 0; }
  void scale(double f) {
    fwd *= f;
    fwd_fp32 *= f;
    bwd *= f;
    bwd_fp32 *= f;
  }
};

struct Op {
  std::string name;  // "layer3.block2.conv1"
  OpKind kind = OpKind::elementwise;
  int layer = 0;          // block index, for the trace and bucketing
  double m = 0, n = 0, k = 0;  // forward GEMM view (convs as implicit GEMM), per instance
  double batch = 1;       // independent GEMMs in one kernel (batched GEMM, groups)
  double repeats = 1;     // sequential launches of this op (RNN time steps)
  double fwd_flops = 0;   // all instances, all repeats
  double bwd_flops = 0;
  double elements_in = 0, elements_out = 0;  // activation elements read / written in forward
  double params = 0;      // weight elements owned by this op
  double saved = 0;       // activation elements kept for backward
  // More elements kept when eager modules run it instead of a fused kernel (MemoryConvention::
  // eager_kernels): a gated MLP activation's output.
  double eager_extra_saved = 0;
  // One-byte elements kept for backward whatever the activation dtype: dropout masks.
  double saved_mask = 0;
  // Share of `saved` a fused attention kernel keeps only because the stack repeats the K/V heads to
  // the query heads before calling it (GQA/MQA through repeat_kv or expand); a kernel given the KV
  // heads (Transformer Engine) keeps the rest (MemoryConvention::repeats_kv_heads).
  double repeated_kv_share = 0;
  // The rotary embedding: what it keeps is its input, alive only where the stack keeps the
  // projection output it reads (MemoryConvention::rope_keeps_input). grouped_kv: the model has fewer
  // K/V heads than query heads (GQA/MQA).
  bool rotary = false, grouped_kv = false;
  // Its saved input is the fused attention kernel's output (the output projection and its LoRA A):
  // the same tensor, stashed once while the kernel keeps its output.
  bool reads_attention_output = false;
  bool input_grad = true; // false for the first op on raw data (no dgrad)
  bool uses_gemm_math = false;  // runs on the GEMM math mode (tensor cores when the policy allows)
  // Embedding tables updated sparsely (only the looked-up rows, as DLRM's SGD does): their weights
  // count for memory but are neither all-reduced nor swept by the optimizer.
  bool sparse_update = false;
  // Batch norm (per-channel batch statistics) rather than layer/RMS norm: autocast and AMP graph
  // rewriters run it at its input's dtype, where they keep layer norms in FP32.
  bool batch_norm = false;
  // Parallel roles, set by the family (GraphBuilder gives attention/softmax `split` and losses
  // `vocab`; everything else starts replicated).
  TpRole tp_role = TpRole::replicated;
  ExpertSplit expert_split = ExpertSplit::none;
  // Part of a repeated block (built under GraphBuilder::set_prefix): pipeline stages, selective
  // recomputation and activation checkpointing work on blocks.
  bool in_block = false;
  // Set by the family on weight GEMMs: the projection class, how many projections the op fuses
  // (QKV: 3, gate+up: 2) and how many independent weight matrices it concatenates (routed experts
  // along n or k). A LoRA adapter pair is added per projection and per matrix.
  Projection projection = Projection::none;
  double fused_projections = 1, weight_groups = 1;
  double narrowest_output = 0;  // of the fused projections (GQA's k and v); 0: all equal
  // The attention sub-layer's output projection (Megatron's linear_proj), which a LoRA target of the
  // query/key/value projections alone (NeMo 1.x's attention_qkv) leaves out.
  bool attention_output = false;
  // Held but not trained (the base model under LoRA): weights count for memory at the storage
  // dtype, but there are no weight gradients, optimizer state or data-parallel gradient traffic.
  bool frozen = false;
  // A frozen weight QLoRA stores in 4 bits (the block projections; the LM head with
  // finetune.quantized_head). Each matmul dequantises it whole, so the largest one sets a transient.
  bool stored_4bit = false;
  // Works on attention scores (q_len x kv_len per head): the attention kernels, the softmax and the
  // dropout on the probabilities. Their work grows with the square of the sequence length.
  bool on_scores = false;
  // A state-space scan (Mamba-2's SSD): timed as a batched GEMM, but its kernels are not the attention
  // or GEMM kernels whose efficiency the rest of the workload shows, so the aggregator sees its share.
  bool state_space_scan = false;
  // Kernels whose memory traffic is not their inputs and outputs once (KernelTraffic).
  KernelTraffic traffic;
  // A GEMM the job's recipe keeps out of FP8/FP4 (the job's low_precision exemptions: Megatron's
  // BF16 first/last layers, Transformer Engine quantization matchers): under a policy whose GEMMs are
  // FP8/FP4 it runs at the policy's 16-bit math, with no FP8 casts and no FP8 weight copy.
  bool high_precision = false;
};

struct Workload {
  std::string model_id;
  std::string sample_unit = "samples";  // images | sequences | samples
  double samples = 0;      // per micro-batch per GPU
  double tokens = 0;       // per micro-batch per GPU (0 for non-sequence models)
  int seq_len = 0;
  std::vector<Op> ops;
  int layers = 0;          // number of distinct layer indices
  double params() const;
  double fwd_flops() const;
  double bwd_flops() const;
  double saved_elements() const;
};

// Appends ops with consistent FLOP/element accounting; generators describe models only through it.
class GraphBuilder {
 public:
  explicit GraphBuilder(Workload& w) : w_(w) {}
  void begin_layer() { ++layer_; }
  int layer() const { return layer_; }
  void set_prefix(const std::string& p) { prefix_ = p; }
  std::size_t op_count() const;
  // Ops added since op `first` reuse weights counted before (a repeated module): they own none.
  void share_weights_since(std::size_t first);
  const std::string& prefix() const { return prefix_; }

  // y[rows x out] = x[rows x in] W (+ b)
  // shared_weight: the weight belongs to another op (tied embeddings) and is not counted again
  // Builders return the op so families can set its parallel roles: g.linear(...).tp_role = TpRole::column.
  Op& linear(const std::string& name, double rows, double in, double out, bool bias = true,
             bool input_grad = true, bool shared_weight = false);
  // batch x [m x k] * [k x n], both operands activations (attention scores/context)
  Op& bmm(const std::string& name, double batch, double m, double n, double k);
  // FlashAttention-style fused kernel: q_len x kv_len scores never hit memory. window > 0: causal
  // sliding-window attention, each query scores at most the `window` latest keys (the kernel skips
  // the masked tiles).
  Op& fused_attention(const std::string& name, double batch_heads, double q_len, double kv_len, double head_dim,
                      bool causal, double window = 0);
  // returns output spatial size; NCHW semantics, groups for ResNeXt/depthwise
  struct Spatial { double h, w; };
  Spatial conv2d(const std::string& name, double batch, double cin, Spatial in, double cout, double kernel,
                 double stride, double groups = 1, bool bias = false, bool input_grad = true);
  // 1-D convolution over time (speech models): returns output length
  double conv1d(const std::string& name, double batch, double cin, double length, double cout, double kernel,
                double stride = 1, double dilation = 1, bool bias = true);
  Op& norm(const std::string& name, double elements, double channels);  // layer/RMS norm
  void batch_norm(const std::string& name, double elements, double channels);
  Op& softmax(const std::string& name, double elements);
  Op& elementwise(const std::string& name, double elements, double inputs = 1, double flops_per_element = 1);
  // table_params: parameters of the table when it is not rows x dim (adaptive embeddings), 0 when
  // the table is shared with another op
  Op& embedding(const std::string& name, double lookups, double dim, double table_rows, double table_params = -1,
                bool sparse_update = false);
  void pooling(const std::string& name, double elements_in, double elements_out);
  // one LSTM/GRU layer over `steps` time steps; gates = 4 (LSTM) or 3 (GRU)
  void rnn(const std::string& name, double batch, double steps, double in, double hidden, double gates,
           bool bidirectional);
  void loss(const std::string& name, double rows, double classes);

  static constexpr std::size_t kMaxOps = 2'000'000;

 private:
  Op& add(Op op);
  Workload& w_;
  int layer_ = 0;
  std::string prefix_;
};

}  // namespace ptp::predict
