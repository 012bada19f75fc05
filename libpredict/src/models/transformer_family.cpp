// Transformer encoder / decoder-only / encoder-decoder stacks from their dimensions (BERT, ELECTRA,
// GPT-2/3, OPT, Llama, BART, T5, Transformer-big, Transformer-XL, ViT), with mixture-of-experts MLPs
// (Mixtral / Qwen-MoE / DeepSeek style), multi-head latent attention, multi-token prediction and
// hybrid Mamba-2 stacks (Nemotron-H / Nemotron 3: one mixer or one MLP per layer, `hybrid_pattern`).
//
// Each op carries its Megatron-LM parallel role (Op::tp_role, Op::expert_split), set here where the
// op is built: QKV/Q/KV, MLP up and the LM head are column-parallel, attention out and MLP down
// row-parallel, RoPE, attention dropout and the MLP activation work on head/ffn-split tensors, token
// embeddings are vocabulary-parallel, the experts' ops are divided over expert-parallel ranks, and
// the MLA down-projections and the MoE router are replicated. A Mamba-2 mixer follows Megatron's
// MambaMixer: in_proj column-parallel, out_proj row-parallel, conv, scan and gated norm head-split.
// Names are for people and the trace only.
#include <algorithm>
#include <cmath>

#include "ptp/predict/model_zoo.hpp"
#include "transformer_dims.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {
namespace {

Op& column(Op& op) {
  op.tp_role = TpRole::column;
  return op;
}
Op& row(Op& op) {
  op.tp_role = TpRole::row;
  return op;
}
Op& split(Op& op) {
  op.tp_role = TpRole::split;
  return op;
}
// Routed experts are divided over EP ranks and not over TP (expert tensor parallel size 1).
void experts(Op& op, ExpertSplit how) { op.expert_split = how; }
// The MLP activation. A gated one (SwiGLU, GeGLU) stashes both its inputs, the gate and the up
// projection, for backward; GELU/ReLU its one input. Run eagerly, a gated one also keeps act(gate),
// the product's other operand.
Op& mlp_activation(GraphBuilder& g, const std::string& name, double elements, bool gated) {
  Op& op = g.elementwise(name, elements, gated ? 2 : 1, gated ? 6 : 4);
  op.saved = op.elements_in;
  if (gated) op.eager_extra_saved = op.elements_in / 2;
  return op;
}
// Weight projections a fine-tuning method can target (LoRA): attention q/k/v/o, MLP gate/up/down.
// `fused`: projections the op computes at once (QKV 3, KV 2, gate+up 2); `groups`: experts whose
// weights the op concatenates.
Op& attn_proj(Op& op, double fused = 1, double narrowest = 0) {
  op.projection = Projection::attention;
  op.fused_projections = fused;
  op.narrowest_output = narrowest;
  return op;
}
Op& mlp_proj(Op& op, double fused = 1, double groups = 1) {
  op.projection = Projection::mlp;
  op.fused_projections = fused;
  op.weight_groups = groups;
  return op;
}

// DeepSeek multi-head latent attention: compressed q and kv (replicated down-projections,
// column-parallel up-projections), RoPE on a decoupled slice, one fused attention kernel whose QK
// and V head sizes differ (counted at their mean).
void mla_attention(GraphBuilder& g, const TransformerDims& d, double batch, double q_len, double keys, bool causal) {
  const double T = batch * q_len, h = d.hidden;
  const double qk = d.qk_nope_head_dim + d.qk_rope_head_dim;
  g.norm("self_attn_norm", T * h, h);
  if (d.q_lora_rank > 0) {
    attn_proj(g.linear("self_attn_q_compress", T, h, d.q_lora_rank, false));
    g.norm("self_attn_q_norm", T * d.q_lora_rank, d.q_lora_rank);
    attn_proj(column(g.linear("self_attn_q", T, d.q_lora_rank, d.heads * qk, false)));
  } else {
    attn_proj(column(g.linear("self_attn_q", T, h, d.heads * qk, false)));
  }
  attn_proj(g.linear("self_attn_kv_compress", T, h, d.kv_lora_rank + d.qk_rope_head_dim, false));
  g.norm("self_attn_kv_norm", T * d.kv_lora_rank, d.kv_lora_rank);
  attn_proj(column(g.linear("self_attn_kv", T, d.kv_lora_rank, d.heads * (d.qk_nope_head_dim + d.v_head_dim), false)));
  split(g.elementwise("self_attn_rope", T * (d.heads + 1) * d.qk_rope_head_dim, 1, 6)).rotary = true;
  g.fused_attention("self_attn_flash", batch * d.heads, q_len, keys, (qk + d.v_head_dim) / 2, causal);
  Op& out = attn_proj(row(g.linear("self_attn_out", T, d.heads * d.v_head_dim, h, false)));
  out.attention_output = out.reads_attention_output = true;
  g.elementwise("self_attn_residual", T * h, 2, 1);
}

// A routed MLP. The experts' grouped GEMMs are expressed as one GEMM against the experts'
// concatenated weights with T*k/E rows per expert: FLOPs and weights are exact; the up-projection's
// input and the down-projection's output are carried by the dispatch and combine ops around them.
void moe_mlp(GraphBuilder& g, const TransformerDims& d, double T, bool gated) {
  const double h = d.hidden, E = d.num_experts, k = d.experts_per_token, f = d.expert_ffn;
  const double rows = T * k / E;  // balanced routing (the published MoE benchmarks force it)
  // LatentMoE routes on the full hidden state, then dispatches and computes at the latent width
  // (Megatron fc1_latent_proj / fc2_latent_proj around the token dispatcher; replicated like the router).
  const double w = d.expert_latent > 0 ? d.expert_latent : h;
  g.linear("moe_router", T, h, E, false);
  g.elementwise("moe_gate", T * E, 1, 4);  // softmax / sigmoid + top-k
  if (d.expert_latent > 0) g.linear("moe_latent_down", T, h, w, false);
  experts(g.elementwise("expert_dispatch", T * k * w, 1, 2), ExpertSplit::routed);
  experts(mlp_proj(g.linear("expert_up", rows, w, E * (gated ? 2 * f : f), false), gated ? 2 : 1, E), ExpertSplit::n);
  experts(mlp_activation(g, "expert_act", T * k * f, gated), ExpertSplit::routed);
  experts(mlp_proj(g.linear("expert_down", rows, E * f, w, false), 1, E), ExpertSplit::k);
  // The weighted sum of each token's k expert outputs keeps them (and the routing weights) for the
  // gradient of the weights.
  Op& combine = g.elementwise("expert_combine", T * w, k, 2);
  combine.saved = combine.elements_in;
  experts(combine, ExpertSplit::routed);
  if (d.expert_latent > 0) g.linear("moe_latent_up", T, w, h, false);
  if (d.shared_expert_ffn > 0) {
    const double sf = d.shared_expert_ffn;
    mlp_proj(column(g.linear("shared_up", T, h, gated ? 2 * sf : sf, false)), gated ? 2 : 1);
    split(mlp_activation(g, "shared_act", T * sf, gated));
    mlp_proj(row(g.linear("shared_down", T, sf, h, false)));
  }
}

// cap * tanh(x / cap): three elementwise passes, the tanh's output kept for backward.
Op& softcap(GraphBuilder& g, const std::string& name, double elements) {
  Op& op = g.elementwise(name, elements, 1, 6);
  op.saved = elements;
  return op;
}

// The attention half of a block: norm, projections, scores (fused or explicit), output, residual.
// self: self-attention over `keys` (MLA when the model has it); else cross-attention to an encoder.
void attention_sublayer(GraphBuilder& g, const TransformerDims& d, const std::string& tag, double batch, double q_len,
                        double keys, bool causal, bool self, double window) {
  if (self && d.mla) return mla_attention(g, d, batch, q_len, keys, causal);
  const double T = batch * q_len, h = d.hidden;
  const double q_dim = d.heads * d.head_dim, kv_dim = d.kv_heads * d.head_dim;
  g.norm(tag + "_norm", T * h, h);
  if (self) {
    attn_proj(column(g.linear(tag + "_qkv", T, h, q_dim + 2 * kv_dim, d.qkv_bias)), 3, std::min(q_dim, kv_dim));
  } else {
    attn_proj(column(g.linear(tag + "_q", T, h, q_dim, d.qkv_bias)));
    attn_proj(column(g.linear(tag + "_kv", batch * keys, h, 2 * kv_dim, d.qkv_bias)), 2);
  }
  if (d.positions == "rotary") {
    Op& rope = split(g.elementwise(tag + "_rope", T * (q_dim + kv_dim), 1, 6));
    rope.rotary = true;
    rope.grouped_kv = d.kv_heads < d.heads;
  }
  const bool fused = d.attention == "flash";
  if (fused) {
    Op& flash = g.fused_attention(tag + "_flash", batch * d.heads, q_len, keys, d.head_dim, causal, self ? window : 0);
    // The kernel's operands are counted at the query heads; GQA/MQA models hold fewer K/V heads.
    const double repeated_kv = 2 * batch * (d.heads - d.kv_heads) * d.head_dim * keys;
    flash.repeated_kv_share = flash.saved > 0 ? std::max(0.0, repeated_kv) / flash.saved : 0;
  } else {
    const double bh = batch * d.heads;
    g.bmm(tag + "_scores", bh, q_len, keys, d.head_dim);
    if (d.positions == "relative") g.bmm(tag + "_pos_scores", bh, q_len, keys, d.head_dim);
    // Softcapped scores (Gemma 2 in HF's eager attention, litgpt, torchtune): the tanh keeps its
    // output, and the softmax runs in FP32 (softmax(..., dtype=float).to(bf16)), whose FP32 output
    // the eager stacks keep beside the 16-bit probabilities the context matmul reads.
    if (d.attention_softcap > 0) split(softcap(g, tag + "_softcap", bh * q_len * keys)).on_scores = true;
    Op& softmax = g.softmax(tag + "_softmax", bh * q_len * keys);
    if (d.attention_softcap > 0) softmax.eager_extra_saved = bh * q_len * keys;  // FP32: 2 bytes more
    if (d.dropout) split(g.elementwise(tag + "_attn_dropout", bh * q_len * keys, 1, 2)).on_scores = true;
    g.bmm(tag + "_context", bh, q_len, d.head_dim, keys);
  }
  Op& out = attn_proj(row(g.linear(tag + "_out", T, q_dim, h, d.bias)));
  out.attention_output = true;
  out.reads_attention_output = fused;
  if (d.dropout) g.elementwise(tag + "_dropout", T * h, 1, 2);
  g.elementwise(tag + "_residual", T * h, 2, 1);
}

// The MLP half of a block: norm, dense or routed MLP, residual.
void mlp_sublayer(GraphBuilder& g, const TransformerDims& d, double T, bool moe) {
  const double h = d.hidden;
  g.norm("mlp_norm", T * h, h);
  const bool gated = d.activation == "swiglu" || d.activation == "geglu";
  if (moe) {
    moe_mlp(g, d, T, gated);
    g.elementwise("mlp_residual", T * h, 2, 1);
    return;
  }
  mlp_proj(column(g.linear("mlp_up", T, h, gated ? 2 * d.ffn : d.ffn, d.bias)), gated ? 2 : 1);
  split(mlp_activation(g, "mlp_act", T * d.ffn, gated));
  mlp_proj(row(g.linear("mlp_down", T, d.ffn, h, d.bias)));
  if (d.dropout) g.elementwise("mlp_dropout", T * h, 1, 2);
  g.elementwise("mlp_residual", T * h, 2, 1);
}

// One pre-/post-norm block: self-attention (+ cross-attention) + MLP. Tokens = batch * q_len.
void block(GraphBuilder& g, const TransformerDims& d, double batch, double q_len, double kv_len, bool causal,
           double cross_len, bool moe = false, double window = 0) {
  attention_sublayer(g, d, "self_attn", batch, q_len, kv_len, causal, true, window);
  if (d.positions == "relative") g.linear("rel_pos_proj", kv_len, d.hidden, d.heads * d.head_dim, false);
  if (cross_len > 0) attention_sublayer(g, d, "cross_attn", batch, q_len, cross_len, false, false, 0);
  mlp_sublayer(g, d, batch * q_len, moe);
}

// What the SSD kernels of mamba_ssm (ops/triton/ssd_combined.py, as Megatron's MambaMixer calls
// them) read and write per token, from each kernel's operands. x = heads x head_dim (x, z, the
// output and their gradients), states = x x state / chunk (one FP32 chunk state per chunk, passed on
// at the activation dtype), bc = groups x state (B or C), cb = groups x chunk (C B^T, FP32), h = heads
// (dt and its cumulative sums, FP32). Forward, five kernels: chunk_cumsum, chunk_state (writes FP32
// states), state_passing, bmm_chunk (writes FP32 C B^T), chunk_scan (writes the output and its gated
// copy). Backward recomputes the first four, then runs eleven more (dz, dstates, state_passing_bwd,
// dx, dB, dC, dCB, two bmm_chunk_bwd, ddA_cumsum, chunk_cumsum_bwd).
void ssd_scan_traffic(Op& ssd, double tokens, double x, double states, double bc, double cb, double h) {
  ssd.repeats = 5;
  ssd.traffic.fwd = tokens * (5 * x + 4 * bc + 2 * states + h);
  ssd.traffic.fwd_fp32 = tokens * (6 * h + 2 * states + 2 * cb);
  ssd.traffic.bwd = tokens * (17 * x + 15 * bc + 8 * states + 2 * h);
  ssd.traffic.bwd_fp32 = tokens * (22 * h + 6 * cb + 2 * states);
}

// One Mamba-2 mixer layer (Dao & Gu 2024, "Transformers are SSMs", arXiv:2405.21060; Megatron-Core
// MambaMixer). d_inner = heads x head_dim; x, B, C go through the causal depthwise conv.
void mamba_block(GraphBuilder& g, const TransformerDims& d, double batch, double len) {
  const double T = batch * len, h = d.hidden;
  const double H = d.mamba_heads, P = d.mamba_head_dim, N = d.mamba_state, G = d.mamba_groups;
  const double Q = std::min(d.mamba_chunk, len), K = d.mamba_conv_kernel;
  const double inner = H * P, conv_channels = inner + 2 * G * N;
  g.norm("mamba_norm", T * h, h);
  // in_proj emits z (gate), x, B, C and dt: 2 d_inner + 2 groups x state + heads.
  column(g.linear("mamba_in_proj", T, h, 2 * inner + 2 * G * N + H, false));
  // Causal depthwise conv over x, B, C (+ SiLU): K taps per element, memory-bound; weights K + bias.
  Op& conv = split(g.elementwise("mamba_conv1d", T * conv_channels, 1, 2 * K + 4));
  conv.params = conv_channels * (K + 1);
  // SSD chunked scan (paper section 6) per token, with chunk Q: C B^T within the chunk, 2 G Q N
  // (per group); its masked product with x, 2 H Q P; chunk states B^T x and their read-out C h,
  // 2 x 2 H N P; the inter-chunk state pass is (1/Q) of that and left out. It runs as batched
  // GEMMs over (batch x heads x chunks) tiles of Q x P, counted here with its exact FLOPs (the
  // backward kernels do twice the forward, as for GEMMs) and its kernels' memory traffic.
  Op& ssd = g.bmm("mamba_ssd_scan", batch * H * std::ceil(len / Q), Q, P, N);
  ssd.fwd_flops = 2 * T * (G * Q * N + H * Q * P + 2 * H * N * P);
  ssd.bwd_flops = 2 * ssd.fwd_flops;
  ssd.elements_in = T * (inner + 2 * G * N + H);
  ssd.elements_out = T * inner;
  ssd.saved = ssd.elements_in;
  ssd.params = 3 * H;  // A_log, D, dt_bias per head
  ssd.on_scores = false;  // linear in the sequence, unlike attention scores
  ssd.state_space_scan = true;
  ssd_scan_traffic(ssd, T, inner, H * P * N / Q, G * N, G * Q, H);
  // Gated RMSNorm, y * SiLU(z) normalised per group: the heads' slice on each TP rank.
  split(g.norm("mamba_gated_norm", T * inner, inner)).saved = 2 * T * inner;
  row(g.linear("mamba_out_proj", T, inner, h, false));
  g.elementwise("mamba_residual", T * h, 2, 1);
}

// One layer of a hybrid stack, by its pattern letter.
void hybrid_layer(GraphBuilder& g, const TransformerDims& d, char letter, double batch, double len) {
  switch (letter) {
    case 'M': return mamba_block(g, d, batch, len);
    case '*': return attention_sublayer(g, d, "self_attn", batch, len, len, true, true, 0);
    case '-': return mlp_sublayer(g, d, batch * len, false);
    default: return mlp_sublayer(g, d, batch * len, true);  // 'E'
  }
}

void embed_tokens(GraphBuilder& g, const TransformerDims& d, double batch, double len, const std::string& tag,
                  bool shared_table = false) {
  const double T = batch * len;
  g.embedding(tag + "_tokens", T, d.hidden, d.vocab, shared_table ? 0.0 : d.token_table_params).tp_role = TpRole::vocab;
  if (d.positions == "learned" && d.max_positions > 0) g.embedding(tag + "_positions", T, d.hidden, d.max_positions);
  if (d.type_vocab > 0) g.embedding(tag + "_types", T, d.hidden, d.type_vocab);
  if (d.embedding_norm) g.norm(tag + "_norm", T * d.hidden, d.hidden);
  if (d.dropout) g.elementwise(tag + "_dropout", T * d.hidden, 1, 2);
}

void transformer(const YamlReader& p, const BuildContext& ctx, GraphBuilder& g) {
  const TransformerDims d = read_transformer_dims(p);
  const double B = ctx.batch;
  double S = ctx.seq_len;
  const bool vision = d.image > 0;
  if (vision) {
    const double patches = std::pow(std::floor(d.image / d.patch), 2);
    S = patches + 1;
    g.begin_layer();
    g.linear("patch_embed", B * patches, d.channels * d.patch * d.patch, d.hidden, true, false);
    g.elementwise("pos_embed_add", B * S * d.hidden, 2, 1);
  } else {
    if (S <= 0) p.fail("seq_len is required for this sequence model");
    g.begin_layer();
    embed_tokens(g, d, B, S, "embed");
  }
  const bool causal = d.kind == "decoder-only";
  for (int i = 0; i < d.enc_layers; ++i) {
    g.begin_layer();
    g.set_prefix((d.kind == "encoder-decoder" ? "encoder." : "layer") + std::to_string(i));
    // A hybrid layer is one mixer or one MLP; Megatron counts each as a layer when it splits
    // the stack into pipeline stages, and so does count_blocks (one unit per layer).
    if (!d.hybrid_pattern.empty()) {
      hybrid_layer(g, d, d.hybrid_pattern[static_cast<std::size_t>(i)], B, S);
      continue;
    }
    const bool global = d.global_every > 0 && (i + 1) % d.global_every == 0;
    block(g, d, B, S, S + d.mem_len, causal, 0, d.num_experts > 0 && i >= d.first_dense_layers,
          global ? 0 : d.sliding_window);
  }
  g.set_prefix("");
  double out_len = S;
  if (d.kind == "encoder-decoder") {
    const double T_len = std::max(1.0, std::round(S * d.tgt_ratio));
    g.begin_layer();
    embed_tokens(g, d, B, T_len, "decoder_embed", d.share_embeddings);
    for (int i = 0; i < d.dec_layers; ++i) {
      g.begin_layer();
      g.set_prefix("decoder" + std::to_string(i));
      block(g, d, B, T_len, T_len, true, S);
    }
    g.set_prefix("");
    out_len = T_len;
  }
  g.begin_layer();
  g.norm("final_norm", B * out_len * d.hidden, d.hidden);
  std::string head = d.head;
  if (auto it = d.head_by_seq_len.find(ctx.seq_len); it != d.head_by_seq_len.end()) head = it->second;
  if (head == "lm" || head == "mlm") {
    const double rows = std::ceil(B * out_len * (head == "mlm" ? d.head_fraction : 1.0));
    if (head == "mlm") {
      g.linear("mlm_transform", rows, d.hidden, d.hidden, true);
      g.norm("mlm_norm", rows * d.hidden, d.hidden);
    }
    // Tied embeddings share the weight: count the GEMM, not the parameters again.
    const bool tied = d.tie_embeddings && !ctx.untie_embeddings;
    column(g.linear("lm_head", rows, d.hidden, d.head_vocab, false, true, /*shared_weight=*/tied));
    if (d.logit_softcap > 0) softcap(g, "lm_softcap", rows * d.head_vocab).tp_role = TpRole::vocab;
    g.loss("lm_loss", rows, d.head_vocab);
    if (head == "mlm") g.linear("nsp_head", B, d.hidden, 2, true);
  } else if (head == "span") {
    g.linear("span_head", B * out_len, d.hidden, 2, true);
    g.loss("span_loss", 2 * B, out_len);
  } else if (head == "classify") {
    if (!vision) g.linear("pooler", B, d.hidden, d.hidden, true);
    g.linear("classifier", B, d.hidden, std::max(1.0, d.num_classes), true);
    g.loss("loss", B, std::max(1.0, d.num_classes));
  } else if (head == "discriminator") {
    g.linear("disc_dense", B * out_len, d.hidden, d.hidden, true);
    g.linear("disc_head", B * out_len, d.hidden, 1, true);
    g.loss("disc_loss", B * out_len, 1);
  } else if (head != "none") {
    p.child("head").fail("expected lm | mlm | span | classify | discriminator | none");
  }
  // Multi-token prediction (DeepSeek-V3): each module joins the hidden state with the next token's
  // embedding, runs one more block and predicts through the shared output head. A job may run more
  // depths than the model has modules; they reuse the modules in turn.
  const int depths = d.mtp_layers > 0 && ctx.mtp_depth > 0 ? ctx.mtp_depth : d.mtp_layers;
  for (int i = 0; i < depths; ++i) {
    const std::size_t first_op = g.op_count();
    g.begin_layer();
    g.set_prefix("mtp" + std::to_string(i));
    const double T = B * S;
    g.norm("mtp_hidden_norm", T * d.hidden, d.hidden);
    g.norm("mtp_embed_norm", T * d.hidden, d.hidden);
    g.linear("mtp_eh_proj", T, 2 * d.hidden, d.hidden, false);
    if (d.mtp_pattern.empty()) block(g, d, B, S, S, true, 0, d.num_experts > 0);
    for (char letter : d.mtp_pattern) hybrid_layer(g, d, letter, B, S);
    g.norm("mtp_final_norm", T * d.hidden, d.hidden);
    column(g.linear("mtp_lm_head", T, d.hidden, d.head_vocab, false, true, /*shared_weight=*/true));
    g.loss("mtp_loss", T, d.head_vocab);
    g.set_prefix("");
    if (i >= d.mtp_layers) g.share_weights_since(first_op);
  }
}

}  // namespace

void generate_transformer(const YamlReader& p, const BuildContext& ctx, GraphBuilder& g) { transformer(p, ctx, g); }

}  // namespace ptp::predict
