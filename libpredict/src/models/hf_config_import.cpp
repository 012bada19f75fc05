// Hugging Face config.json -> transformer family parameters (BERT, RoBERTa, ELECTRA, GPT-2, OPT,
// Llama/Mistral/Qwen2, BART, T5). Unknown architectures are refused, not guessed.
#include <nlohmann/json.hpp>

#include "ptp/predict/model_zoo.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"

namespace ptp {

namespace {
using nlohmann::json;

double field(const json& j, const std::string& path, const std::vector<std::string>& names, double fallback = -1) {
  for (const auto& n : names) {
    auto it = j.find(n);
    if (it != j.end() && it->is_number()) {
      double v = it->get<double>();
      if (!(v >= 0) || v > 1e9) throw InputError(path, 0, 0, n, "expected a non-negative number below 1e9");
      return v;
    }
    if (it != j.end() && !it->is_null() && !it->is_number())
      throw InputError(path, 0, 0, n, "expected a number");
  }
  if (fallback < 0) throw InputError(path, 0, 0, names.front(), "missing required field");
  return fallback;
}
// Optional bool/string fields: json::value() throws type_error on a wrong type (an internal error).
bool flag(const json& j, const std::string& path, const char* name, bool fallback) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) throw InputError(path, 0, 0, name, "expected true or false");
  return it->get<bool>();
}
std::string string_field(const json& j, const std::string& path, const char* name, const std::string& fallback) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_string()) throw InputError(path, 0, 0, name, "expected a string");
  return it->get<std::string>();
}
}  // namespace

ModelDesc import_hf_config(const std::string& path) {
  return import_hf_config_text(read_text_file(path, 4u << 20, "JSON text"), path);
}

ModelDesc import_hf_config_text(const std::string& text, const std::string& path) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(path, 0, 0, "", std::string("JSON syntax error at byte ") + std::to_string(e.byte));
  } catch (const json::exception& e) {  // out_of_range: a number too large for a double (1e400)
    throw InputError(path, 0, 0, "", std::string("invalid JSON: ") + e.what());
  }
  if (!j.is_object()) throw InputError(path, 0, 0, "", "expected a JSON object (a Hugging Face config.json)");
  if (!j.contains("model_type") || !j["model_type"].is_string())
    throw InputError(path, 0, 0, "model_type", "missing; cannot tell the architecture");
  const std::string type = j["model_type"].get<std::string>();

  YAML::Node p;
  auto set = [&](const char* k, double v) { p[k] = v; };
  std::string sample_unit = "sequences";
  if (type == "bert" || type == "roberta" || type == "electra" || type == "deberta") {
    p["kind"] = "encoder";
    set("layers", field(j, path, {"num_hidden_layers"}));
    set("hidden", field(j, path, {"hidden_size"}));
    set("heads", field(j, path, {"num_attention_heads"}));
    set("ffn", field(j, path, {"intermediate_size"}));
    set("vocab", field(j, path, {"vocab_size"}));
    set("max_positions", field(j, path, {"max_position_embeddings"}, 512));
    set("type_vocab", field(j, path, {"type_vocab_size"}, 2));
    p["head"] = type == "electra" ? "discriminator" : "mlm";
    set("head_fraction", 0.15);
  } else if (type == "gpt2") {
    p["kind"] = "decoder-only";
    const double h = field(j, path, {"n_embd", "hidden_size"});
    set("layers", field(j, path, {"n_layer", "num_hidden_layers"}));
    set("hidden", h);
    set("heads", field(j, path, {"n_head", "num_attention_heads"}));
    set("ffn", field(j, path, {"n_inner"}, 4 * h));
    set("vocab", field(j, path, {"vocab_size"}));
    set("max_positions", field(j, path, {"n_positions", "max_position_embeddings"}, 1024));
  } else if (type == "opt") {
    p["kind"] = "decoder-only";
    set("layers", field(j, path, {"num_hidden_layers"}));
    set("hidden", field(j, path, {"hidden_size"}));
    set("heads", field(j, path, {"num_attention_heads"}));
    set("ffn", field(j, path, {"ffn_dim"}));
    set("vocab", field(j, path, {"vocab_size"}));
    set("max_positions", field(j, path, {"max_position_embeddings"}, 2048) + 2);
    p["activation"] = "relu";
  } else if (type == "llama" || type == "mistral" || type == "qwen2" || type == "qwen3") {
    p["kind"] = "decoder-only";
    const double heads = field(j, path, {"num_attention_heads"});
    set("layers", field(j, path, {"num_hidden_layers"}));
    set("hidden", field(j, path, {"hidden_size"}));
    set("heads", heads);
    set("kv_heads", field(j, path, {"num_key_value_heads"}, heads));
    if (j.contains("head_dim") && j["head_dim"].is_number()) set("head_dim", field(j, path, {"head_dim"}));
    set("ffn", field(j, path, {"intermediate_size"}));
    set("vocab", field(j, path, {"vocab_size"}));
    p["activation"] = "swiglu";
    p["norm"] = "rmsnorm";
    p["positions"] = "rotary";
    p["attention"] = "flash";
    p["bias"] = type == "qwen2";
    p["dropout"] = false;
    p["tie_embeddings"] = flag(j, path, "tie_word_embeddings", false);
  } else if (type == "bart" || type == "mbart") {
    p["kind"] = "encoder-decoder";
    set("encoder_layers", field(j, path, {"encoder_layers"}));
    set("decoder_layers", field(j, path, {"decoder_layers"}));
    set("hidden", field(j, path, {"d_model"}));
    set("heads", field(j, path, {"encoder_attention_heads"}));
    set("ffn", field(j, path, {"encoder_ffn_dim"}));
    set("vocab", field(j, path, {"vocab_size"}));
    set("max_positions", field(j, path, {"max_position_embeddings"}, 1024) + 2);
  } else if (type == "t5") {
    p["kind"] = "encoder-decoder";
    const double layers = field(j, path, {"num_layers"});
    set("encoder_layers", layers);
    set("decoder_layers", field(j, path, {"num_decoder_layers"}, layers));
    set("hidden", field(j, path, {"d_model"}));
    set("heads", field(j, path, {"num_heads"}));
    set("head_dim", field(j, path, {"d_kv"}, 64));
    set("ffn", field(j, path, {"d_ff"}));
    set("vocab", field(j, path, {"vocab_size"}));
    p["positions"] = "none";
    p["norm"] = "rmsnorm";
    p["bias"] = false;
    p["activation"] = string_field(j, path, "feed_forward_proj", "relu").find("gated") != std::string::npos ? "geglu" : "relu";
  } else {
    throw InputError(path, 0, 0, "model_type",
                     "unsupported architecture '" + type + "'; expected bert | roberta | electra | gpt2 | opt | llama | "
                     "mistral | qwen2 | qwen3 | bart | t5");
  }
  ModelDesc m;
  m.id = string_field(j, path, "_name_or_path", "");
  if (m.id.empty()) m.id = type;
  m.family = "transformer";
  m.description = "imported from Hugging Face config " + path;
  m.sample_unit = sample_unit;
  m.sequence = true;
  m.params = YamlReader(p, path, "");
  m.source_file = path;
  return m;
}

}  // namespace ptp
