// Hugging Face config.json of decoder-only language models -> transformer family parameters. One
// table row per model_type says what its modelling code hard-wires (gated MLP, norm, positions,
// biases, tied embeddings); the config's fields give the sizes: GQA/MQA key-value heads, head_dim,
// sliding windows, mixture-of-experts (Mixtral, Qwen-MoE, OLMoE, DeepSeek), DeepSeek's latent
// attention and NemotronH's hybrid Mamba-2 stacks. Field names follow each model's
// configuration_*.py in transformers.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "hf_decoder_import.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::hf {

namespace {

// What a model_type's modelling code fixes, independent of its config.
struct Family {
  const char* type;
  bool gated;             // gate * act(up) MLP (Llama) rather than act(up) (GPT-NeoX)
  const char* norm;       // rmsnorm | layernorm
  const char* positions;  // rotary | learned | none (ALiBi adds no weights and no GEMMs)
  bool tie;               // tie_word_embeddings default of its config class
  enum Moe { dense, mixtral, qwen_moe, deepseek } moe;
  enum Window { none, all_layers, qwen_opt_in, every_2nd_global, pattern_global } window;
};

constexpr Family kFamilies[] = {
    {"llama", true, "rmsnorm", "rotary", false, Family::dense, Family::none},
    {"mistral", true, "rmsnorm", "rotary", false, Family::dense, Family::all_layers},
    {"mixtral", true, "rmsnorm", "rotary", false, Family::mixtral, Family::all_layers},
    {"qwen2", true, "rmsnorm", "rotary", false, Family::dense, Family::qwen_opt_in},
    {"qwen2_moe", true, "rmsnorm", "rotary", false, Family::qwen_moe, Family::qwen_opt_in},
    {"qwen3", true, "rmsnorm", "rotary", false, Family::dense, Family::qwen_opt_in},
    {"qwen3_moe", true, "rmsnorm", "rotary", false, Family::qwen_moe, Family::qwen_opt_in},
    {"deepseek_v2", true, "rmsnorm", "rotary", false, Family::deepseek, Family::none},
    {"deepseek_v3", true, "rmsnorm", "rotary", false, Family::deepseek, Family::none},
    {"kimi_k2", true, "rmsnorm", "rotary", false, Family::deepseek, Family::none},  // DeepSeek-V3 code, its own type
    {"gemma", true, "rmsnorm", "rotary", true, Family::dense, Family::none},
    {"gemma2", true, "rmsnorm", "rotary", true, Family::dense, Family::every_2nd_global},
    {"gemma3_text", true, "rmsnorm", "rotary", true, Family::dense, Family::pattern_global},
    {"phi3", true, "rmsnorm", "rotary", false, Family::dense, Family::all_layers},
    {"gpt_neox", false, "layernorm", "rotary", false, Family::dense, Family::none},
    {"falcon", false, "layernorm", "rotary", true, Family::dense, Family::none},
    {"starcoder2", false, "layernorm", "rotary", true, Family::dense, Family::all_layers},
    {"mpt", false, "layernorm", "none", true, Family::dense, Family::none},
    {"gpt_bigcode", false, "layernorm", "learned", true, Family::dense, Family::none},
    {"nemotron", false, "layernorm", "rotary", false, Family::dense, Family::none},
    {"olmo", true, "layernorm", "rotary", false, Family::dense, Family::none},
    {"olmo2", true, "rmsnorm", "rotary", false, Family::dense, Family::none},
    {"olmoe", true, "rmsnorm", "rotary", false, Family::mixtral, Family::none},
};

[[noreturn]] void contradiction(const std::string& path, const std::string& name, const std::string& msg) {
  throw InputError(path, 0, 0, name, msg);
}

// The MLP activation: gated families multiply act(gate) into up (SwiGLU, GeGLU); the rest apply it
// to one projection. ReLU^2 (Nemotron) costs what ReLU costs.
std::string activation(const json& j, const std::string& path, bool gated, const char* fallback) {
  std::string act = string_field(j, path, "hidden_act", "");
  if (act.empty()) act = string_field(j, path, "hidden_activation", "");
  if (act.empty()) act = string_field(j, path, "activation_function", fallback);
  const bool gelu = act.rfind("gelu", 0) == 0;
  if (gated) return gelu ? "geglu" : "swiglu";
  return act.rfind("relu", 0) == 0 ? "relu" : "gelu";
}

void read_moe(const json& j, const std::string& path, const Family& f, YAML::Node& p, double layers) {
  double experts = 0, topk = 0, expert_ffn = 0, shared_ffn = 0, first_dense = 0;
  if (f.moe == Family::mixtral) {
    const bool local = has_number(j, "num_local_experts"), plain = has_number(j, "num_experts");
    if (local && plain && field(j, path, {"num_local_experts"}) != field(j, path, {"num_experts"}))
      contradiction(path, "num_experts", "contradicts num_local_experts (" +
                                             std::to_string(static_cast<long>(field(j, path, {"num_local_experts"}))) + ")");
    experts = field(j, path, {"num_local_experts", "num_experts"});
    expert_ffn = field(j, path, {"intermediate_size"});
  } else if (f.moe == Family::qwen_moe) {
    experts = field(j, path, {"num_experts"});
    expert_ffn = field(j, path, {"moe_intermediate_size"});
    shared_ffn = field(j, path, {"shared_expert_intermediate_size"}, 0);
    if (field(j, path, {"decoder_sparse_step"}, 1) != 1)
      contradiction(path, "decoder_sparse_step", "only 1 (every layer sparse) is modelled");
    auto it = j.find("mlp_only_layers");
    if (it != j.end() && !it->is_null() && !(it->is_array() && it->empty()))
      contradiction(path, "mlp_only_layers", "dense layers between sparse ones are not modelled; expected []");
  } else {
    experts = field(j, path, {"n_routed_experts"});
    expert_ffn = field(j, path, {"moe_intermediate_size"});
    shared_ffn = field(j, path, {"n_shared_experts"}, 0) * expert_ffn;
    first_dense = field(j, path, {"first_k_dense_replace"}, 0);
    if (field(j, path, {"moe_layer_freq"}, 1) != 1)
      contradiction(path, "moe_layer_freq", "only 1 (every layer after first_k_dense_replace sparse) is modelled");
  }
  topk = field(j, path, {"num_experts_per_tok"});
  if (experts < 1) contradiction(path, "num_experts_per_tok", "needs at least one routed expert; the config has 0");
  if (topk < 1 || topk > experts)
    contradiction(path, "num_experts_per_tok", "must be between 1 and the " +
                                                   std::to_string(static_cast<long>(experts)) + " routed experts");
  if (expert_ffn < 1) contradiction(path, f.moe == Family::mixtral ? "intermediate_size" : "moe_intermediate_size",
                                    "must be positive in a mixture-of-experts model");
  if (first_dense >= layers)
    contradiction(path, "first_k_dense_replace", "leaves no sparse layer of the " +
                                                     std::to_string(static_cast<long>(layers)) + " layers");
  p["num_experts"] = experts;
  p["experts_per_token"] = topk;
  p["expert_ffn"] = expert_ffn;
  if (shared_ffn > 0) p["shared_expert_ffn"] = shared_ffn;
  if (first_dense > 0) p["first_dense_layers"] = first_dense;
}

void read_mla(const json& j, const std::string& path, YAML::Node& p) {
  YAML::Node m;
  m["q_lora_rank"] = field(j, path, {"q_lora_rank"}, 0);  // null in DeepSeek-V2-Lite: full-rank q
  m["kv_lora_rank"] = field(j, path, {"kv_lora_rank"});
  m["qk_nope_head_dim"] = field(j, path, {"qk_nope_head_dim"});
  m["qk_rope_head_dim"] = field(j, path, {"qk_rope_head_dim"});
  m["v_head_dim"] = field(j, path, {"v_head_dim"});
  p["mla"] = m;
}

void read_window(const json& j, const std::string& path, const Family& f, YAML::Node& p) {
  if (f.window == Family::none) return;
  if (f.window == Family::qwen_opt_in && !flag(j, path, "use_sliding_window", false)) return;
  const double window = field(j, path, {"sliding_window"}, 0);
  if (window <= 0) return;
  p["sliding_window"] = window;
  if (f.window == Family::every_2nd_global) p["global_every"] = 2;
  if (f.window == Family::pattern_global) {
    // Newer Gemma 3 configs list layer_types; older ones give sliding_window_pattern (default 6).
    double every = field(j, path, {"sliding_window_pattern"}, 6);
    auto it = j.find("layer_types");
    if (it != j.end() && it->is_array() && !it->empty()) {
      std::size_t first_full = it->size();
      for (std::size_t i = 0; i < it->size(); ++i)
        if ((*it)[i].is_string() && (*it)[i].get<std::string>() == "full_attention") {
          first_full = i;
          break;
        }
      every = first_full < it->size() ? static_cast<double>(first_full + 1) : 0;
    }
    if (every > 0) p["global_every"] = every;
  }
}

// NemotronH (Nemotron-H, Nemotron Nano 2, Nemotron 3): hybrid_override_pattern gives one letter per
// layer (M Mamba-2, * attention, - MLP, E MoE), the same letters as the family's hybrid_pattern.
// Attention has no positional embedding; MLPs are ungated ReLU^2; norms RMSNorm. Nemotron 3 Super
// adds LatentMoE (moe_latent_size) and MTP modules (num_nextn_predict_layers, each one
// mtp_hybrid_override_pattern).
void import_nemotron_h(const json& j, const std::string& path, YAML::Node& p) {
  const std::string pattern = string_field(j, path, "hybrid_override_pattern", "");
  const double layers = field(j, path, {"num_hidden_layers"}, static_cast<double>(pattern.size()));
  if (pattern.size() != static_cast<std::size_t>(layers))
    contradiction(path, "hybrid_override_pattern", "needs one letter per layer (" +
                                                       std::to_string(static_cast<long>(layers)) + " layers)");
  const double heads = field(j, path, {"num_attention_heads"});
  p["kind"] = "decoder-only";
  p["attention"] = "flash";
  p["dropout"] = false;
  p["norm"] = "rmsnorm";
  p["positions"] = "none";
  p["activation"] = "relu2";
  p["layers"] = layers;
  p["hybrid_pattern"] = pattern;
  p["hidden"] = field(j, path, {"hidden_size"});
  p["heads"] = heads;
  p["kv_heads"] = field(j, path, {"num_key_value_heads"}, heads);
  if (has_number(j, "head_dim")) p["head_dim"] = field(j, path, {"head_dim"});
  p["ffn"] = field(j, path, {"intermediate_size"});
  p["vocab"] = field(j, path, {"vocab_size"});
  p["bias"] = flag(j, path, "mlp_bias", false);
  p["qkv_bias"] = flag(j, path, "attention_bias", false);
  p["tie_embeddings"] = flag(j, path, "tie_word_embeddings", false);
  if (pattern.find('E') != std::string::npos) {
    p["num_experts"] = field(j, path, {"n_routed_experts"});
    p["experts_per_token"] = field(j, path, {"num_experts_per_tok"});
    p["expert_ffn"] = field(j, path, {"moe_intermediate_size"});
    // modeling_nemotron_h: one shared MLP of moe_shared_expert_intermediate_size x n_shared_experts.
    const double shared =
        field(j, path, {"moe_shared_expert_intermediate_size"}, 0) * field(j, path, {"n_shared_experts"}, 1);
    if (shared > 0) p["shared_expert_ffn"] = shared;
    const double latent = field(j, path, {"moe_latent_size"}, 0);
    if (latent > 0) p["expert_latent"] = latent;
  }
  const double mtp = field(j, path, {"num_nextn_predict_layers"}, 0);
  if (mtp > 0) {
    p["mtp_layers"] = mtp;
    p["mtp_pattern"] = string_field(j, path, "mtp_hybrid_override_pattern", "");
  }
  if (pattern.find('M') != std::string::npos) {
    YAML::Node m;
    m["heads"] = field(j, path, {"mamba_num_heads"});
    m["head_dim"] = field(j, path, {"mamba_head_dim"});
    m["state"] = field(j, path, {"ssm_state_size"});
    m["groups"] = field(j, path, {"n_groups"}, 1);
    m["conv_kernel"] = field(j, path, {"conv_kernel"}, 4);
    m["chunk"] = field(j, path, {"chunk_size"}, 256);
    p["mamba"] = m;
  }
}

}  // namespace

std::string decoder_types() {
  std::string list;
  for (const auto& f : kFamilies) list += std::string(list.empty() ? "" : " | ") + f.type;
  return list + " | nemotron_h";
}

bool import_decoder(const json& j, const std::string& path, const std::string& type, YAML::Node& p) {
  if (type == "nemotron_h") {
    import_nemotron_h(j, path, p);
    return true;
  }
  const Family* f = nullptr;
  for (const auto& fam : kFamilies)
    if (type == fam.type) f = &fam;
  if (!f) return false;
  p["kind"] = "decoder-only";
  p["attention"] = "flash";
  p["dropout"] = false;
  p["norm"] = f->norm;
  p["positions"] = f->positions;
  // Gemma's modelling code defaults to GeGLU (gelu_pytorch_tanh) when the config names none.
  const bool gemma = type.rfind("gemma", 0) == 0;
  p["activation"] = activation(j, path, f->gated, gemma || !f->gated ? "gelu" : "silu");
  double layers = 0, hidden = 0, heads = 0, kv_heads = 0, ffn = 0;
  bool bias = false, qkv_bias = false;
  if (type == "mpt") {
    hidden = field(j, path, {"d_model"});
    heads = field(j, path, {"n_heads"});
    layers = field(j, path, {"n_layers"});
    ffn = field(j, path, {"expansion_ratio"}, 4) * hidden;
    kv_heads = heads;
    if (auto a = j.find("attn_config"); a != j.end() && a->is_object()) kv_heads = field(*a, path, {"kv_n_heads"}, heads);
    bias = !flag(j, path, "no_bias", true);
    p["max_positions"] = field(j, path, {"max_seq_len"}, 2048);
  } else if (type == "gpt_bigcode") {
    hidden = field(j, path, {"n_embd", "hidden_size"});
    heads = field(j, path, {"n_head", "num_attention_heads"});
    layers = field(j, path, {"n_layer", "num_hidden_layers"});
    ffn = field(j, path, {"n_inner"}, 4 * hidden);
    kv_heads = flag(j, path, "multi_query", true) ? 1 : heads;
    bias = true;
    p["max_positions"] = field(j, path, {"n_positions", "max_position_embeddings"}, 2048);
  } else if (type == "falcon") {
    hidden = field(j, path, {"hidden_size"});
    heads = field(j, path, {"num_attention_heads", "n_head"});
    layers = field(j, path, {"num_hidden_layers", "n_layer"});
    ffn = field(j, path, {"ffn_hidden_size"}, 4 * hidden);
    // new_decoder_architecture (Falcon-40B/180B): grouped KV heads; otherwise multi-query (7B).
    if (flag(j, path, "new_decoder_architecture", false)) kv_heads = field(j, path, {"num_kv_heads"}, heads);
    else kv_heads = flag(j, path, "multi_query", true) ? 1 : heads;
    bias = flag(j, path, "bias", false);
    if (flag(j, path, "alibi", false)) p["positions"] = "none";
  } else {
    heads = field(j, path, {"num_attention_heads"});
    layers = field(j, path, {"num_hidden_layers"});
    hidden = field(j, path, {"hidden_size"});
    kv_heads = field(j, path, {"num_key_value_heads"}, heads);
    ffn = field(j, path, {"intermediate_size"});
    if (type == "gpt_neox") bias = true;
    else if (type == "starcoder2") bias = flag(j, path, "use_bias", true);
    else bias = flag(j, path, "mlp_bias", false);
    qkv_bias = type == "qwen2" || type == "qwen2_moe" || flag(j, path, "attention_bias", bias);
  }
  if (type == "mpt" || type == "gpt_bigcode" || type == "falcon" || type == "gpt_neox" || type == "starcoder2") qkv_bias = bias;
  if (kv_heads < 1 || kv_heads > heads || std::fmod(heads, kv_heads) != 0)
    contradiction(path, "num_key_value_heads", "must divide the " + std::to_string(static_cast<long>(heads)) +
                                                   " attention heads");
  p["layers"] = layers;
  p["hidden"] = hidden;
  p["heads"] = heads;
  p["kv_heads"] = kv_heads;
  if (has_number(j, "head_dim")) p["head_dim"] = field(j, path, {"head_dim"});
  p["ffn"] = ffn;
  // Gemma3TextConfig's default vocabulary; the multimodal config often leaves it out of text_config.
  p["vocab"] = field(j, path, {"vocab_size"}, type == "gemma3_text" ? 262208 : -1);
  p["bias"] = bias;
  p["qkv_bias"] = qkv_bias;
  p["tie_embeddings"] = flag(j, path, "tie_word_embeddings", f->tie);
  if (f->moe != Family::dense) read_moe(j, path, *f, p, layers);
  if (f->moe == Family::deepseek) read_mla(j, path, p);
  read_window(j, path, *f, p);
  // Gemma 2's soft caps (null in Gemma 3). Capped scores are computed explicitly, as HF's eager
  // attention (the one it recommends for training Gemma 2), litgpt and torchtune do.
  if (has_number(j, "attn_logit_softcapping")) {
    p["attention_softcap"] = field(j, path, {"attn_logit_softcapping"});
    p["attention"] = "standard";
  }
  if (has_number(j, "final_logit_softcapping")) p["logit_softcap"] = field(j, path, {"final_logit_softcapping"});
  return true;
}

bool import_generic_decoder(const json& j, const std::string& path, const std::string& type, YAML::Node& p,
                            std::vector<std::string>& warnings) {
  for (const char* needed : {"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "vocab_size"})
    if (!has_number(j, needed)) return false;
  p["kind"] = "decoder-only";
  p["attention"] = "flash";
  p["dropout"] = false;
  p["norm"] = "rmsnorm";
  p["positions"] = "rotary";
  const std::string act = string_field(j, path, "hidden_act", "silu");
  const bool gated = !(act.rfind("gelu", 0) == 0 || act.rfind("relu", 0) == 0);
  p["activation"] = activation(j, path, gated, "silu");
  const double heads = field(j, path, {"num_attention_heads"});
  const double kv_heads = field(j, path, {"num_key_value_heads"}, heads);
  if (kv_heads < 1 || kv_heads > heads || std::fmod(heads, kv_heads) != 0)
    contradiction(path, "num_key_value_heads", "must divide the " + std::to_string(static_cast<long>(heads)) +
                                                   " attention heads");
  p["layers"] = field(j, path, {"num_hidden_layers"});
  p["hidden"] = field(j, path, {"hidden_size"});
  p["heads"] = heads;
  p["kv_heads"] = kv_heads;
  if (has_number(j, "head_dim")) p["head_dim"] = field(j, path, {"head_dim"});
  p["ffn"] = field(j, path, {"intermediate_size"});
  p["vocab"] = field(j, path, {"vocab_size"});
  const bool attention_bias = flag(j, path, "attention_bias", false);
  p["bias"] = false;
  p["qkv_bias"] = attention_bias;
  const bool tie = flag(j, path, "tie_word_embeddings", false);
  p["tie_embeddings"] = tie;
  std::string moe;
  if (has_number(j, "num_local_experts") || has_number(j, "num_experts")) {
    static const Family mixtral_like{"", true, "rmsnorm", "rotary", false, Family::mixtral, Family::none};
    Family f = mixtral_like;
    read_moe(j, path, f, p, field(j, path, {"num_hidden_layers"}));
    if (has_number(j, "moe_intermediate_size")) p["expert_ffn"] = field(j, path, {"moe_intermediate_size"});
    moe = ", Mixtral-style routed experts in every layer (no shared experts)";
  }
  warnings.push_back("config.json model_type '" + type + "' is not a known family (" + decoder_types() +
                     "): imported as a generic decoder-only transformer assuming " +
                     (gated ? "a gated (SwiGLU/GeGLU)" : "an ungated") + " MLP from hidden_act '" + act +
                     "', RMSNorm, rotary positions, " + (attention_bias ? "q/k/v biases only" : "no biases") + ", " +
                     (tie ? "tied" : "untied") + " embeddings" + moe + ", no sliding window");
  return true;
}

}  // namespace ptp::predict::hf
