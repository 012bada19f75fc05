// Reads a transformer stack's dimensions from its zoo YAML (transformer_dims.hpp).
#include "transformer_dims.hpp"

#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {
namespace {


// Each MTP module of a hybrid stack is a short hybrid pattern of its own (HF mtp_hybrid_override_pattern).
void read_mtp_pattern(const YamlReader& p, TransformerDims& d) {
  if (d.mtp_layers <= 0) {
    if (p.has("mtp_pattern")) p.child("mtp_pattern").fail("needs mtp_layers");
    return;
  }
  if (!p.has("mtp_pattern")) p.child("mtp_layers").fail("needs mtp_pattern with hybrid_pattern");
  d.mtp_pattern = p.get_string("mtp_pattern");
  if (d.mtp_pattern.empty() || d.mtp_pattern.find_first_not_of("M*-E") != std::string::npos)
    p.child("mtp_pattern").fail("expected letters M, *, - or E");
  if (d.mtp_pattern.find('E') != std::string::npos && d.num_experts <= 0)
    p.child("mtp_pattern").fail("letter E needs num_experts");
}

// Mamba-2 mixer dimensions; defaults are Mamba-2's (conv 4, chunk 256, one group).
void read_mamba(const YamlReader& m, TransformerDims& d) {
  m.check_keys({"heads", "head_dim", "state", "groups", "conv_kernel", "chunk"});
  d.mamba_heads = m.get_number("heads", 1, 1e5);
  d.mamba_head_dim = m.get_number("head_dim", 1, 1e4);
  d.mamba_state = m.get_number("state", 1, 1e5);
  d.mamba_groups = m.get_number("groups", 1, d.mamba_heads, 1);
  if (std::fmod(d.mamba_heads, d.mamba_groups) != 0) m.child("groups").fail("must divide heads");
  d.mamba_conv_kernel = m.get_number("conv_kernel", 1, 64, 4);
  d.mamba_chunk = m.get_number("chunk", 1, 1e5, 256);
}

// The hybrid layer pattern, its MTP modules' pattern and its Mamba-2 mixer (decoder-only stacks only).
void read_hybrid(const YamlReader& p, TransformerDims& d) {
  if (!p.has("hybrid_pattern")) {
    for (const char* k : {"mamba", "mtp_pattern"})
      if (p.has(k)) p.child(k).fail("needs hybrid_pattern");
    return;
  }
  const auto pat = p.child("hybrid_pattern");
  if (d.kind != "decoder-only") pat.fail("needs kind: decoder-only");
  d.hybrid_pattern = p.get_string("hybrid_pattern");
  if (d.hybrid_pattern.find_first_not_of("M*-E") != std::string::npos)
    pat.fail("expected one letter per layer: M (Mamba-2), * (attention), - (MLP), E (MoE MLP)");
  if (static_cast<int>(d.hybrid_pattern.size()) != d.enc_layers)
    pat.fail("has " + std::to_string(d.hybrid_pattern.size()) + " letters for " + std::to_string(d.enc_layers) +
             " layers");
  if (d.hybrid_pattern.find('E') != std::string::npos && d.num_experts <= 0) pat.fail("letter E needs num_experts");
  read_mtp_pattern(p, d);
  if ((d.hybrid_pattern + d.mtp_pattern).find('M') == std::string::npos) return;
  if (!p.has("mamba")) pat.fail("letter M needs a mamba: section");
  read_mamba(p.child("mamba"), d);
}

}  // namespace

TransformerDims read_transformer_dims(const YamlReader& p) {
  p.check_keys({"kind", "layers", "encoder_layers", "decoder_layers", "hidden", "heads", "kv_heads", "head_dim",
                "ffn", "vocab", "max_positions", "type_vocab", "activation", "norm", "positions", "attention", "head",
                "head_fraction", "head_by_seq_len", "num_classes", "bias", "tie_embeddings", "embedding_norm", "dropout", "mem_len",
                "target_length_ratio", "image", "head_vocab", "share_embeddings", "adaptive_embedding", "num_experts",
                "experts_per_token", "expert_ffn", "shared_expert_ffn", "first_dense_layers", "mtp_layers", "mla",
                "qkv_bias", "sliding_window", "global_every", "hybrid_pattern", "mamba", "expert_latent",
                "mtp_pattern", "attention_softcap", "logit_softcap"});
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
  // relu2: squared ReLU (Nemotron-4, Nemotron-H), an ungated MLP like relu.
  if (d.activation != "gelu" && d.activation != "relu" && d.activation != "relu2" && d.activation != "swiglu" &&
      d.activation != "geglu")
    p.child("activation").fail("expected gelu | relu | relu2 | swiglu | geglu");
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
  d.qkv_bias = p.get_bool("qkv_bias", d.bias);  // Qwen2: biases on q/k/v only
  d.sliding_window = p.get_number("sliding_window", 0, 1e8, 0);
  d.global_every = static_cast<int>(p.get_int("global_every", 0, 10000, 0));
  if (d.global_every > 0 && d.sliding_window <= 0) p.child("global_every").fail("needs sliding_window");
  d.attention_softcap = p.get_number("attention_softcap", 0, 1e6, 0);
  d.logit_softcap = p.get_number("logit_softcap", 0, 1e6, 0);
  d.tie_embeddings = p.get_bool("tie_embeddings", true);
  d.dropout = p.get_bool("dropout", true);
  // BERT-style post-norm encoders normalise the summed embeddings (BERT, RoBERTa, ELECTRA); pre-norm
  // decoders (GPT-2, Llama, Mistral, ...), T5 and the Transformer big do not. BART says so itself.
  d.embedding_norm = p.get_bool("embedding_norm", d.kind == "encoder");
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
  d.num_experts = p.get_number("num_experts", 0, 1e5, 0);
  if (d.num_experts > 0) {
    d.experts_per_token = p.get_number("experts_per_token", 1, d.num_experts);
    d.expert_ffn = p.get_number("expert_ffn", 1, 1e7, d.ffn);
    d.shared_expert_ffn = p.get_number("shared_expert_ffn", 0, 1e7, 0);
    d.first_dense_layers = static_cast<int>(p.get_int("first_dense_layers", 0, d.enc_layers, 0));
    d.expert_latent = p.get_number("expert_latent", 0, d.hidden, 0);
  } else {
    for (const char* k : {"experts_per_token", "expert_ffn", "shared_expert_ffn", "first_dense_layers", "expert_latent"})
      if (p.has(k)) p.child(k).fail("needs num_experts");
  }
  d.mtp_layers = static_cast<int>(p.get_int("mtp_layers", 0, 16, 0));
  if (d.mtp_layers > 0 && d.kind != "decoder-only") p.child("mtp_layers").fail("needs kind: decoder-only");
  if (auto m = p.optional_child("mla")) {
    m->check_keys({"q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"});
    d.mla = true;
    d.q_lora_rank = m->get_number("q_lora_rank", 0, 1e6, 0);
    d.kv_lora_rank = m->get_number("kv_lora_rank", 1, 1e6);
    d.qk_nope_head_dim = m->get_number("qk_nope_head_dim", 1, 1e4);
    d.qk_rope_head_dim = m->get_number("qk_rope_head_dim", 0, 1e4);
    d.v_head_dim = m->get_number("v_head_dim", 1, 1e4);
  }
  if (auto img = p.optional_child("image")) {
    img->check_keys({"size", "patch", "channels"});
    d.image = img->get_number("size", 1, 1e5);
    d.patch = img->get_number("patch", 1, 1e5);
    d.channels = img->get_number("channels", 1, 1e3, 3);
  }
  read_hybrid(p, d);
  return d;
}

}  // namespace ptp::predict
