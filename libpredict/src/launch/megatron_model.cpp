// The model a Megatron-LM argument list trains, as a model YAML document of the transformer family
// (configs/models form). Megatron sets norm, activation, positions, biases and tying each by its own
// flag, and the family's parameters take each one separately, so every combination the flags can
// make is one model (a Hugging Face model_type would hard-wire some of them). Defaults and derived
// sizes follow megatron/training/arguments.py and tokenizer.py (_vocab_size_with_padding) at
// NVIDIA/Megatron-LM 67f3515c8a0539d38c23f59dd8b85efdcbb3af3d.
#include <filesystem>

#include "megatron_flags.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::launch {

namespace {

struct Dims {
  const MegatronFlags& a;
  LaunchRead& out;
  YAML::Node params;

  // A size the flags give: into the model and the dims checked against a model: the job names.
  long long size(std::string_view flag, const char* param, long long fallback) {
    const GivenFlag* g = a.get(flag);
    const long long v = a.integer(flag, fallback);
    if (g) out.dims.push_back({param, static_cast<double>(v), g->flag + " " + g->value, a.where(*g)});
    if (v > 0) params[param] = v;
    return v;
  }
};

std::string one_of(const MegatronFlags& a, std::string_view flag, const std::string& fallback,
                   const std::vector<std::pair<std::string, std::string>>& names) {
  const GivenFlag* g = a.get(flag);
  if (!g) return fallback;
  const std::string& v = a.value(*g);
  std::string expected;
  for (const auto& [from, to] : names) {
    if (v == from) return to;
    expected += (expected.empty() ? "" : ", ") + from;
  }
  a.fail(*g, "expected " + expected + ", got '" + v + "'");
}

double dropout(const MegatronFlags& a, std::string_view flag) {
  const GivenFlag* g = a.get(flag);
  if (!g) return 0.1;  // Megatron's default for both dropouts
  try {
    std::size_t used = 0;
    const double p = std::stod(a.value(*g), &used);
    if (used == g->value.size() && p >= 0 && p <= 1) return p;
  } catch (const std::exception&) {
  }
  a.fail(*g, "expected a probability 0 .. 1, got '" + g->value + "'");
}

}  // namespace

void read_megatron_model(const MegatronFlags& a, LaunchRead& out) {
  Dims d{a, out, YAML::Node(YAML::NodeType::Map)};
  auto& p = d.params;
  p["kind"] = "decoder-only";
  d.size("--num-layers", "layers", 0);
  const long long hidden = d.size("--hidden-size", "hidden", 0);
  const long long heads = d.size("--num-attention-heads", "heads", 0);
  const bool swiglu = a.has("--swiglu");
  if (swiglu && a.has("--squared-relu"))
    a.contradiction(*a.get("--swiglu"), *a.get("--squared-relu"), "one MLP activation");
  if (const GivenFlag* groups = a.get("--num-query-groups")) {
    if (a.has("--group-query-attention")) {
      const long long kv = d.size("--num-query-groups", "kv_heads", heads);
      if (heads > 0 && heads % kv != 0)
        a.fail(*groups, std::to_string(kv) + " does not divide the " + std::to_string(heads) + " attention heads");
    } else {
      out.warnings.push_back(a.where(*groups) +
                             ": --num-query-groups without --group-query-attention: Megatron ignores it");
    }
  }
  const long long head_dim = d.size("--kv-channels", "head_dim", 0);
  if (head_dim == 0 && heads > 0 && hidden > 0 && hidden % heads != 0)
    a.fail(*a.get("--num-attention-heads"), std::to_string(heads) + " heads do not divide --hidden-size " +
                                                std::to_string(hidden) + " (give --kv-channels)");
  const long long ffn_default = swiglu ? (4 * hidden * 2 / 3) / 64 * 64 : 4 * hidden;
  d.size("--ffn-hidden-size", "ffn", hidden > 0 ? ffn_default : 0);

  // Megatron pads the vocabulary to a multiple of make_vocab_size_divisible_by x the tensor-parallel size.
  long long vocab = 0;
  if (const GivenFlag* padded = a.get("--padded-vocab-size")) {
    vocab = d.size(padded->flag, "vocab", 0);
  } else if (const GivenFlag* raw = a.get("--vocab-size")) {
    const long long given = a.integer(raw->flag, 0);
    const long long multiple =
        a.integer("--make-vocab-size-divisible-by", 128) * a.integer("--tensor-model-parallel-size", 1);
    vocab = (given + multiple - 1) / multiple * multiple;
    out.dims.push_back({"vocab", static_cast<double>(given), raw->flag + " " + raw->value, a.where(*raw)});
    p["vocab"] = vocab;
  }

  p["activation"] = swiglu ? "swiglu" : a.has("--squared-relu") ? "relu2" : "gelu";
  p["norm"] = one_of(a, "--normalization", "layernorm", {{"LayerNorm", "layernorm"}, {"RMSNorm", "rmsnorm"}});
  const std::string positions = one_of(a, "--position-embedding-type", "learned",
                                       {{"learned_absolute", "learned"},
                                        {"rope", "rotary"},
                                        {"yarn", "rotary"},
                                        {"mrope", "rotary"},
                                        {"relative", "none"},
                                        {"none", "none"}});
  p["positions"] = positions;
  const GivenFlag* max_positions = a.get("--max-position-embeddings");
  if (max_positions && positions == "learned") d.size(max_positions->flag, "max_positions", 0);
  if (max_positions && a.has("--seq-length") && a.integer("--seq-length", 0) > a.integer(max_positions->flag, 0))
    a.contradiction(*max_positions, *a.get("--seq-length"), "Megatron needs max_position_embeddings >= seq_length");
  const std::string backend = a.text("--attention-backend", "auto");
  p["attention"] = backend == "unfused" || backend == "local" ? "standard" : "flash";
  p["bias"] = !a.has("--disable-bias-linear");
  if (a.has("--add-qkv-bias")) p["qkv_bias"] = true;
  p["dropout"] = dropout(a, "--hidden-dropout") > 0 || dropout(a, "--attention-dropout") > 0;
  p["tie_embeddings"] = !a.has("--untie-embeddings-and-output-weights");

  if (const GivenFlag* experts = a.get("--num-experts")) {
    const long long n = d.size(experts->flag, "num_experts", 0);
    const long long topk = d.size("--moe-router-topk", "experts_per_token", 2);  // Megatron's default top-k
    if (topk > n) {
      const GivenFlag* k = a.get("--moe-router-topk");
      a.fail(k ? *k : *experts,
             "top-" + std::to_string(topk) + " routing needs more than the " + std::to_string(n) + " experts");
    }
    d.size("--moe-ffn-hidden-size", "expert_ffn", 0);
    d.size("--moe-shared-expert-intermediate-size", "shared_expert_ffn", 0);
  }

  std::string missing;
  for (const char* flag : {"--num-layers", "--hidden-size", "--num-attention-heads"})
    if (!a.has(flag)) missing += (missing.empty() ? "no " : ", ") + std::string(flag);
  if (vocab == 0) missing += (missing.empty() ? "no " : ", ") + std::string("--vocab-size or --padded-vocab-size");
  if (!missing.empty()) {
    out.model_missing = missing;
    return;
  }
  const std::string name = "megatron-args:" + std::filesystem::path(a.file()).filename().string();
  YAML::Emitter e;
  e << YAML::BeginMap << YAML::Key << "id" << YAML::Value << name << YAML::Key << "family" << YAML::Value
    << "transformer" << YAML::Key << "description" << YAML::Value
    << "built from the Megatron-LM arguments in " + std::filesystem::path(a.file()).filename().string() << YAML::Key
    << "sample_unit" << YAML::Value << "sequences" << YAML::Key << "sequence" << YAML::Value << true << YAML::Key
    << "params" << YAML::Value << p << YAML::EndMap;
  out.model_yaml = std::string(e.c_str()) + "\n";
}

}  // namespace ptp::predict::launch
