// Transformer encoder / decoder-only / encoder-decoder stacks from their dimensions (BERT, ELECTRA,
// GPT-2/3, OPT, Llama, BART, T5, Transformer-big, Transformer-XL, ViT).
#include <cmath>

#include "ptp/predict/model_zoo.hpp"
#include "ptp/vocab/error.hpp"

namespace ptp {
namespace {

struct TransformerDims {
  std::string kind;  // encoder | decoder-only | encoder-decoder
  int enc_layers = 0, dec_layers = 0;
  double hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn = 0, vocab = 0, max_positions = 0, type_vocab = 0;
  std::string activation, norm, positions, attention, head;
  bool bias = true, tie_embeddings = true, dropout = true, share_embeddings = true;
  double token_table_params = -1;  // adaptive input embeddings: smaller than vocab x hidden
  double head_vocab = 0, head_fraction = 1, num_classes = 0, mem_len = 0, tgt_ratio = 1;
  double image = 0, patch = 0, channels = 3;
  std::map<int, std::string> head_by_seq_len;
};

TransformerDims read_dims(const YamlReader& p) {
  p.check_keys({"kind", "layers", "encoder_layers", "decoder_layers", "hidden", "heads", "kv_heads", "head_dim",
                "ffn", "vocab", "max_positions", "type_vocab", "activation", "norm", "positions", "attention", "head",
                "head_fraction", "head_by_seq_len", "num_classes", "bias", "tie_embeddings", "dropout", "mem_len",
                "target_length_ratio", "image", "head_vocab", "share_embeddings", "adaptive_embedding"});
  TransformerDims d;
  d.kind = p.get_string("kind");
  if (d.kind != "encoder" && d.kind != "decoder-only" && d.kind != "encoder-decoder")
    p.child("kind").fail("expected encoder | decoder-only | encoder-decoder");
  if (d.kind == "encoder-decoder") {
    d.enc_layers = static_cast<int>(p.get_int("encoder_layers", 1, 10000));
    d.dec_layers = static_cast<int>(p.get_int("decoder_layers", 1, 10000));
  } else {
    d.enc_layers = static_cast<int>(p.get_int("layers", 1, 10000));
  }
  d.hidden = p.get_number("hidden", 1, 1e6);
  d.heads = p.get_number("heads", 1, 1e4);
  d.kv_heads = p.get_number("kv_heads", 1, 1e4, d.heads);
  d.head_dim = p.get_number("head_dim", 1, 1e5, d.hidden / d.heads);
  d.ffn = p.get_number("ffn", 1, 1e7, 4 * d.hidden);
  d.vocab = p.get_number("vocab", 0, 1e8, 0);
  // Adaptive softmax (Transformer-XL) computes logits for a fraction of the vocabulary per token.
  d.head_vocab = p.get_number("head_vocab", 1, 1e8, std::max(1.0, d.vocab));
  d.max_positions = p.get_number("max_positions", 0, 1e8, 0);
  d.type_vocab = p.get_number("type_vocab", 0, 1e3, 0);
  d.activation = p.get_string("activation", "gelu");
  if (d.activation != "gelu" && d.activation != "relu" && d.activation != "swiglu" && d.activation != "geglu")
    p.child("activation").fail("expected gelu | relu | swiglu | geglu");
  d.norm = p.get_string("norm", "layernorm");
  d.positions = p.get_string("positions", "learned");
  d.attention = p.get_string("attention", "standard");
  if (d.attention != "standard" && d.attention != "flash") p.child("attention").fail("expected standard | flash");
  d.head = p.get_string("head", "lm");
  d.head_fraction = p.get_number("head_fraction", 0, 1, 1);
  if (auto hs = p.optional_child("head_by_seq_len")) {
    hs->expect_map();
    for (const auto& k : hs->keys()) {
      int len = 0;
      try {
        len = std::stoi(k);
      } catch (...) {
        hs->fail("keys must be sequence lengths");
      }
      d.head_by_seq_len[len] = hs->get_string(k);
    }
  }
  d.num_classes = p.get_number("num_classes", 0, 1e7, 0);
  d.bias = p.get_bool("bias", true);
  d.tie_embeddings = p.get_bool("tie_embeddings", true);
  d.dropout = p.get_bool("dropout", true);
  d.mem_len = p.get_number("mem_len", 0, 1e6, 0);
  d.tgt_ratio = p.get_number("target_length_ratio", 0.01, 100, 1);
  // Encoder-decoder models with one vocabulary (BART, T5, Transformer big) share one token table.
  d.share_embeddings = p.get_bool("share_embeddings", true);
  if (auto a = p.optional_child("adaptive_embedding")) {
    // Baevski & Auli adaptive input: cluster i of the vocabulary has dimension hidden / div_val^i
    // plus a projection back to hidden.
    a->check_keys({"cutoffs", "div_val"});
    const auto cutoffs = a->child("cutoffs").as_number_list(1, 1e8);
    const double div_val = a->get_number("div_val", 1, 64);
    double start = 0, dim = d.hidden, params = 0;
    std::vector<double> bounds = cutoffs;
    bounds.push_back(d.vocab);
    for (double end : bounds) {
      if (end <= start) a->fail("cutoffs must increase and stay below vocab");
      params += (end - start) * dim + (dim != d.hidden ? dim * d.hidden : 0);
      start = end;
      dim = std::max(1.0, std::floor(dim / div_val));
    }
    d.token_table_params = params;
  }
  if (auto img = p.optional_child("image")) {
    img->check_keys({"size", "patch", "channels"});
    d.image = img->get_number("size", 1, 1e5);
    d.patch = img->get_number("patch", 1, 1e5);
    d.channels = img->get_number("channels", 1, 1e3, 3);
  }
  return d;
}

// One pre-/post-norm block: self-attention (+ cross-attention) + MLP. Tokens = batch * q_len.
void block(GraphBuilder& g, const TransformerDims& d, double batch, double q_len, double kv_len, bool causal,
           double cross_len) {
  const double T = batch * q_len;
  const double h = d.hidden;
  const double q_dim = d.heads * d.head_dim, kv_dim = d.kv_heads * d.head_dim;
  auto attention = [&](const std::string& tag, double keys, bool is_causal, bool self) {
    g.norm(tag + "_norm", T * h, h);
    if (self) {
      g.linear(tag + "_qkv", T, h, q_dim + 2 * kv_dim, d.bias);
    } else {
      g.linear(tag + "_q", T, h, q_dim, d.bias);
      g.linear(tag + "_kv", batch * keys, h, 2 * kv_dim, d.bias);
    }
    if (d.positions == "rotary") g.elementwise(tag + "_rope", T * (q_dim + kv_dim), 1, 6);
    if (d.attention == "flash") {
      g.fused_attention(tag + "_flash", batch * d.heads, q_len, keys, d.head_dim, is_causal);
    } else {
      const double bh = batch * d.heads;
      g.bmm(tag + "_scores", bh, q_len, keys, d.head_dim);
      if (d.positions == "relative") g.bmm(tag + "_pos_scores", bh, q_len, keys, d.head_dim);
      g.softmax(tag + "_softmax", bh * q_len * keys);
      if (d.dropout) g.elementwise(tag + "_attn_dropout", bh * q_len * keys, 1, 2);
      g.bmm(tag + "_context", bh, q_len, d.head_dim, keys);
    }
    g.linear(tag + "_out", T, q_dim, h, d.bias);
    if (d.dropout) g.elementwise(tag + "_dropout", T * h, 1, 2);
    g.elementwise(tag + "_residual", T * h, 2, 1);
  };
  attention("self_attn", kv_len, causal, true);
  if (d.positions == "relative") g.linear("rel_pos_proj", kv_len, h, q_dim, false);
  if (cross_len > 0) attention("cross_attn", cross_len, false, false);
  g.norm("mlp_norm", T * h, h);
  const bool gated = d.activation == "swiglu" || d.activation == "geglu";
  g.linear("mlp_up", T, h, gated ? 2 * d.ffn : d.ffn, d.bias);
  g.elementwise("mlp_act", T * d.ffn, gated ? 2 : 1, gated ? 6 : 4);
  g.linear("mlp_down", T, d.ffn, h, d.bias);
  if (d.dropout) g.elementwise("mlp_dropout", T * h, 1, 2);
  g.elementwise("mlp_residual", T * h, 2, 1);
}

void embed_tokens(GraphBuilder& g, const TransformerDims& d, double batch, double len, const std::string& tag,
                  bool shared_table = false) {
  const double T = batch * len;
  g.embedding(tag + "_tokens", T, d.hidden, d.vocab, shared_table ? 0.0 : d.token_table_params);
  if (d.positions == "learned" && d.max_positions > 0) g.embedding(tag + "_positions", T, d.hidden, d.max_positions);
  if (d.type_vocab > 0) g.embedding(tag + "_types", T, d.hidden, d.type_vocab);
  g.norm(tag + "_norm", T * d.hidden, d.hidden);
  if (d.dropout) g.elementwise(tag + "_dropout", T * d.hidden, 1, 2);
}

void transformer(const YamlReader& p, const BuildContext& ctx, GraphBuilder& g) {
  const TransformerDims d = read_dims(p);
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
    block(g, d, B, S, S + d.mem_len, causal, 0);
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
    g.linear("lm_head", rows, d.hidden, d.head_vocab, false, true, /*shared_weight=*/d.tie_embeddings);
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
}

}  // namespace

void generate_transformer(const YamlReader& p, const BuildContext& ctx, GraphBuilder& g) { transformer(p, ctx, g); }

}  // namespace ptp
