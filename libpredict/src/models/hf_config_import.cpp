// Hugging Face config.json -> transformer family parameters: encoders (BERT, RoBERTa, XLM-R,
// ELECTRA, DeBERTa), GPT-2, OPT, seq2seq (BART, T5) here; the decoder-only families people
// fine-tune in hf_decoder_import.cpp. An unknown model_type with the standard decoder fields is
// imported as a generic decoder with a warning; known non-transformer architectures are refused.
#include <nlohmann/json.hpp>

#include "hf_decoder_import.hpp"
#include "ptp/predict/model_zoo.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {
using hf::field;
using hf::flag;
using hf::json;
using hf::string_field;

// State-space and recurrent language models: their configs may carry hidden_size and friends, but a
// transformer's GEMMs and attention would be the wrong workload.
bool not_a_transformer(const std::string& type) {
  for (const char* t : {"mamba", "mamba2", "falcon_mamba", "rwkv", "rwkv5", "rwkv6", "jamba", "recurrent_gemma",
                        "xlstm", "bamba", "zamba", "zamba2", "falcon_h1"})
    if (type == t) return true;
  return false;
}

bool import_encoder_or_seq2seq(const json& j, const std::string& path, const std::string& type, YAML::Node& p) {
  auto set = [&](const char* k, double v) { p[k] = v; };
  if (type == "bert" || type == "roberta" || type == "xlm-roberta" || type == "camembert" || type == "electra" ||
      type == "deberta") {
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
  } else if (type == "bart" || type == "mbart") {
    p["kind"] = "encoder-decoder";
    set("encoder_layers", field(j, path, {"encoder_layers"}));
    set("decoder_layers", field(j, path, {"decoder_layers"}));
    set("hidden", field(j, path, {"d_model"}));
    set("heads", field(j, path, {"encoder_attention_heads"}));
    set("ffn", field(j, path, {"encoder_ffn_dim"}));
    set("vocab", field(j, path, {"vocab_size"}));
    set("max_positions", field(j, path, {"max_position_embeddings"}, 1024) + 2);
  } else if (type == "t5" || type == "mt5" || type == "umt5") {
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
    return false;
  }
  return true;
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
  std::string type = j["model_type"].get<std::string>();
  ModelDesc m;
  m.id = string_field(j, path, "_name_or_path", "");
  if (m.id.empty()) m.id = type;

  // Gemma 3 multimodal checkpoints nest the language model under text_config; fine-tuning text
  // runs that model (the vision tower is left out, and the prediction says so).
  const json* cfg = &j;
  if (type == "gemma3") {
    auto tc = j.find("text_config");
    if (tc != j.end() && tc->is_object()) {
      cfg = &*tc;
      m.warnings.push_back("gemma3: only the language model (text_config) is modelled, not the vision tower");
    }
    type = "gemma3_text";
  }

  YAML::Node p;
  if (!import_encoder_or_seq2seq(*cfg, path, type, p) && !hf::import_decoder(*cfg, path, type, p)) {
    if (not_a_transformer(type))
      throw InputError(path, 0, 0, "model_type", "unsupported architecture '" + type +
                                                     "' (a state-space or recurrent model, not a transformer)");
    if (!hf::import_generic_decoder(*cfg, path, type, p, m.warnings))
      throw InputError(path, 0, 0, "model_type",
                       "unsupported architecture '" + type + "'; expected bert | roberta | xlm-roberta | camembert | "
                       "electra | deberta | gpt2 | opt | bart | mbart | t5 | mt5 | umt5 | " + hf::decoder_types() +
                       ", or a decoder config with hidden_size, num_hidden_layers, num_attention_heads, "
                       "intermediate_size and vocab_size");
  }
  m.family = "transformer";
  m.description = "imported from Hugging Face config " + path;
  m.sample_unit = "sequences";
  m.sequence = true;
  m.params = YamlReader(p, path, "");
  m.source_file = path;
  m.workload_kind = workload_kind_of(m);
  return m;
}

}  // namespace ptp::predict
