// Hugging Face config.json import of the decoder families people fine-tune: the configs in
// tests/data/hf/ (written from the public config.json of each checkpoint) give the parameter
// counts their model cards and papers publish, total and active for mixtures of experts.
#include <catch2/catch.hpp>

#include "ptp/vocab/error.hpp"
#include "zoo_test_support.hpp"

using namespace ptp::predict;
using ptp::test::build;
using ptp::test::hf_dir;
using ptp::test::models_dir;

namespace {
ModelDesc hf(const std::string& file) { return load_model(hf_dir() + "/" + file, models_dir()); }

struct Counts {
  double total = 0, active = 0;
};
// Active parameters: every weight except the routed experts a token does not visit.
Counts counts(const ModelDesc& m) {
  const Workload w = build(m, 1, 128);
  const double experts = m.params.get_number("num_experts", 0, 1e6, 0);
  const double share = experts > 0 ? m.params.get_number("experts_per_token", 0, 1e6) / experts : 1;
  Counts c;
  for (const auto& op : w.ops) {
    c.total += op.params;
    c.active += op.expert_split != ExpertSplit::none ? op.params * share : op.params;
  }
  return c;
}
}  // namespace

TEST_CASE("HF decoder families import to their published parameter counts", "[models][hf]") {
  struct Case {
    const char* file;
    double total_b, active_b;  // billions; active 0 for dense models
  };
  // Sources: model cards / technical reports of each checkpoint.
  const Case cases[] = {
      {"mixtral-8x7b.json", 46.7, 12.9},      // Mistral AI, Mixtral of Experts (2024)
      {"deepseek-v3.json", 671, 37},          // DeepSeek-V3 report: 671B total, 37B activated (MTP not loaded by HF)
      {"kimi-k2.json", 1026.4, 32.9},         // Kimi K2 report: 1.04T total, 32B activated (HF moonshotai/Kimi-K2-Base)
      {"qwen3-30b-a3b.json", 30.5, 3.3},      // Qwen3 report
      {"qwen1.5-moe-a2.7b.json", 14.3, 2.7},  // Qwen1.5-MoE-A2.7B model card
      {"deepseek-v2-lite.json", 15.7, 0},     // DeepSeek-V2 report (Lite: 15.7B)
      {"gemma-2-9b.json", 9.24, 0},           // Gemma 2 report, Table 1 incl. embeddings
      {"gemma-7b.json", 8.54, 0},             // Gemma report, 8.54B incl. embeddings
      {"gemma-3-1b.json", 1.0, 0},            // Gemma 3 report
      {"qwen2.5-7b.json", 7.61, 0},           // Qwen2.5 model card
      {"qwen3-8b.json", 8.19, 0},             // Qwen3 model card
      {"mistral-7b-v0.1.json", 7.24, 0},      // Mistral 7B model card
      {"phi-3-mini-4k.json", 3.82, 0},        // Phi-3 report (3.8B)
      {"pythia-6.9b.json", 6.857, 0},         // Pythia paper, Table 1
      {"falcon-7b.json", 6.92, 0},            // tiiuae/falcon-7b (6,921,720,704)
      {"starcoder2-7b.json", 7.17, 0},        // StarCoder2 report
      {"mpt-7b.json", 6.65, 0},               // llm-foundry benchmarking table (6658.9M)
      {"starcoderbase-1b.json", 1.14, 0},     // bigcode/starcoderbase-1b
      {"olmo-7b.json", 6.89, 0},              // OLMo paper
      {"olmo2-7b.json", 7.30, 0},             // OLMo 2 model card
  };
  for (const auto& c : cases) {
    INFO(c.file);
    const ModelDesc m = hf(c.file);
    CHECK(m.family == "transformer");
    CHECK(m.warnings.empty());
    const Counts n = counts(m);
    CHECK(n.total / 1e9 == Approx(c.total_b).epsilon(0.02));
    if (c.active_b > 0) CHECK(n.active / 1e9 == Approx(c.active_b).epsilon(0.02));
  }
}

TEST_CASE("HF configs import to the same workload as the zoo YAML of the same model", "[models][hf]") {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"qwen3-8b.json", "qwen3-8b"},
      {"qwen3-30b-a3b.json", "qwen3-30b-a3b"},
      {"kimi-k2.json", "kimi-k2"},
      {"nemotron-4-15b.json", "nemotron4-15b"},
  };
  for (const auto& [file, zoo_id] : pairs) {
    INFO(file << " vs " << zoo_id);
    const Workload a = build(hf(file), 2, 256), b = build(load_model(zoo_id, models_dir()), 2, 256);
    CHECK(a.params() == b.params());
    CHECK(a.fwd_flops() == b.fwd_flops());
  }
}

TEST_CASE("HF import reads GQA, MQA, tied embeddings, biases and MoE routing from the config", "[models][hf]") {
  const auto mixtral = hf("mixtral-8x7b.json").params;
  CHECK(mixtral.get_number("kv_heads", 0, 1e6) == 8);
  CHECK(mixtral.get_number("num_experts", 0, 1e6) == 8);
  CHECK(mixtral.get_number("experts_per_token", 0, 1e6) == 2);
  CHECK_FALSE(mixtral.get_bool("tie_embeddings", false));
  const auto v3 = hf("deepseek-v3.json").params;
  CHECK(v3.get_number("first_dense_layers", 0, 1e6) == 3);
  CHECK(v3.get_number("shared_expert_ffn", 0, 1e6) == 2048);
  CHECK(v3.child("mla").get_number("kv_lora_rank", 0, 1e6) == 512);
  CHECK(hf("deepseek-v2-lite.json").params.child("mla").get_number("q_lora_rank", 0, 1e6) == 0);  // null
  CHECK(hf("falcon-7b.json").params.get_number("kv_heads", 0, 1e6) == 1);        // multi_query
  CHECK(hf("starcoderbase-1b.json").params.get_number("kv_heads", 0, 1e6) == 1);  // multi_query
  CHECK(hf("gemma-7b.json").params.get_bool("tie_embeddings", false));                   // GemmaConfig default
  CHECK(hf("gemma-7b.json").params.get_string("activation") == "geglu");
  CHECK(hf("pythia-6.9b.json").params.get_string("activation") == "gelu");
  CHECK(hf("nemotron-4-15b.json").params.get_string("activation") == "relu");  // relu2
  const auto qwen = hf("qwen2.5-7b.json").params;
  CHECK(qwen.get_bool("qkv_bias", false));
  CHECK_FALSE(qwen.get_bool("bias", false));
  CHECK_FALSE(qwen.has("sliding_window"));  // use_sliding_window: false
  const auto mpt = hf("mpt-7b.json").params;
  CHECK(mpt.get_number("ffn", 0, 1e9) == 4 * 4096);
  CHECK(mpt.get_string("positions") == "none");  // ALiBi
}

TEST_CASE("Sliding windows cut attention FLOPs only beyond the window, every Nth layer global", "[models][hf]") {
  // Mistral 7B at 4096 tokens: the window covers the sequence; at 16384 each query sees 4096 keys.
  const auto mistral = hf("mistral-7b-v0.1.json");
  auto attention = [](const Workload& w) {
    double f = 0;
    for (const auto& op : w.ops)
      if (op.kind == OpKind::fused_attention) f += op.fwd_flops;
    return f;
  };
  const double a4k = attention(build(mistral, 1, 4096)), a16k = attention(build(mistral, 1, 16384));
  // Full causal: 16x from 4x the length; windowed: 4 x (4096 - 4096^2 / 32768) / (4096 / 2) = 7x.
  CHECK(a16k / a4k == Approx(7.0).epsilon(1e-9));
  // Gemma 2: every second layer attends globally.
  const auto gemma2 = hf("gemma-2-9b.json");
  CHECK(gemma2.params.get_number("global_every", 0, 1e6) == 2);
  // Its soft caps come with it, and capped scores are computed explicitly (as the zoo's gemma2 files).
  CHECK(gemma2.params.get_number("attention_softcap", 0, 1e6) == 50);
  CHECK(gemma2.params.get_number("logit_softcap", 0, 1e6) == 30);
  CHECK(gemma2.params.get_string("attention") == "standard");
  const auto gemma3 = hf("gemma-3-1b.json");
  CHECK_FALSE(gemma3.params.has("attention_softcap"));  // null in Gemma 3
  CHECK(gemma3.params.get_string("attention") == "flash");
  CHECK(gemma3.params.get_number("global_every", 0, 1e6) == 6);
  CHECK(gemma3.params.get_number("sliding_window", 0, 1e9) == 512);
}

TEST_CASE("Gemma 3 multimodal configs import their text model and say so", "[models][hf]") {
  const ModelDesc m = hf("gemma-3-4b.json");
  REQUIRE(m.warnings.size() == 1);
  CHECK_THAT(m.warnings[0], Catch::Matchers::Contains("vision tower"));
  CHECK(counts(m).total / 1e9 == Approx(3.88).epsilon(0.02));  // language model of Gemma 3 4B
}

TEST_CASE("An unknown model_type with standard decoder fields imports as a generic decoder with a warning",
          "[models][hf]") {
  const ModelDesc m = hf("generic-decoder.json");
  REQUIRE(m.warnings.size() == 1);
  CHECK_THAT(m.warnings[0], Catch::Matchers::Contains("some_new_llm") && Catch::Matchers::Contains("generic") &&
                                Catch::Matchers::Contains("RMSNorm") && Catch::Matchers::Contains("rotary"));
  // Same fields as Llama 3 8B: the same workload.
  const Workload a = build(m, 2, 128), b = build(load_model("llama3-8b", models_dir()), 2, 128);
  CHECK(a.params() == b.params());
  CHECK(a.fwd_flops() == b.fwd_flops());
}

TEST_CASE("HF configs that lack a needed field or contradict themselves are refused naming the field",
          "[models][hf]") {
  auto refused = [](const std::string& text, const std::string& what) {
    INFO(text);
    CHECK_THROWS_WITH(import_hf_config_text(text, "config.json"), Catch::Matchers::Contains(what));
  };
  const std::string mixtral = R"("model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32,
      "num_attention_heads": 32, "intermediate_size": 14336, "vocab_size": 32000)";
  refused("{" + mixtral + R"(, "num_local_experts": 8})", "num_experts_per_tok: missing required field");
  refused("{" + mixtral + R"(, "num_local_experts": 8, "num_experts_per_tok": 9})", "num_experts_per_tok: must be between 1 and the 8");
  refused("{" + mixtral + R"(, "num_local_experts": 8, "num_experts": 16, "num_experts_per_tok": 2})", "num_experts: contradicts num_local_experts");
  refused("{" + mixtral + R"(, "num_local_experts": 0, "num_experts_per_tok": 2})", "num_experts_per_tok: needs at least one routed expert");
  refused(R"({"model_type": "deepseek_v3", "hidden_size": 7168, "num_hidden_layers": 3, "num_attention_heads": 128,
      "intermediate_size": 18432, "vocab_size": 129280, "n_routed_experts": 256, "num_experts_per_tok": 8,
      "moe_intermediate_size": 2048, "first_k_dense_replace": 3, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
      "qk_rope_head_dim": 64, "v_head_dim": 128})", "first_k_dense_replace: leaves no sparse layer");
  refused(R"({"model_type": "qwen2_moe", "hidden_size": 2048, "num_hidden_layers": 24, "num_attention_heads": 16,
      "intermediate_size": 5632, "vocab_size": 151936, "num_experts": 60, "num_experts_per_tok": 4})",
          "moe_intermediate_size: missing required field");
  refused(R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
      "num_key_value_heads": 7, "intermediate_size": 14336, "vocab_size": 32000})", "num_key_value_heads: must divide");
  refused(R"({"model_type": "mpt", "n_heads": 32, "n_layers": 32, "vocab_size": 50432})", "d_model: missing required field");
  refused(R"({"model_type": "some_new_llm", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
      "vocab_size": 32000})", "intermediate_size");
  refused(R"({"model_type": "mamba", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
      "intermediate_size": 14336, "vocab_size": 32000})", "unsupported architecture 'mamba'");
}
