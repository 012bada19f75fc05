// Every zoo YAML loads, builds a sane workload at a typical batch, scales linearly with batch, and
// sequence models refuse to build without a seq_len.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <set>

#include "ptp/vocab/error.hpp"
#include "support/run_command.hpp"
#include "zoo_test_support.hpp"

using namespace ptp::predict;
using ptp::test::build;
using ptp::test::models_dir;

namespace {
constexpr int kTypicalSeqLen = 128;

// The ids the project promises to ship; more YAMLs may exist.
const std::vector<std::string> kRequiredIds = {
    "efficientnet-b0", "efficientnet-b4", "ssd300",    "maskrcnn-r50-fpn", "unet",     "electra-base-pretraining",
    "gnmt",            "ncf",             "dlrm",      "tacotron2",        "waveglow", "resnet50",
    "bert-large",      "gpt2",            "llama3-8b", "opt-1.3b"};

// Transformer-XL projects the relative position embeddings once per batch, not per sample.
const std::set<std::string> kBatchIndependentWork = {"transformer-xl-base", "transformer-xl-large"};

bool finite_non_negative(const Op& op) {
  for (double v : {op.m, op.n, op.k, op.batch, op.repeats, op.fwd_flops, op.bwd_flops, op.elements_in,
                   op.elements_out, op.params, op.saved})
    if (!std::isfinite(v) || v < 0) return false;
  return true;
}
}  // namespace

TEST_CASE("the zoo contains every required model id", "[models][zoo]") {
  const auto ids = zoo_ids(models_dir());
  for (const auto& id : kRequiredIds) {
    INFO(id);
    CHECK(std::find(ids.begin(), ids.end(), id) != ids.end());
  }
}

TEST_CASE("every zoo model loads and builds at a typical batch", "[models][zoo]") {
  const auto ids = zoo_ids(models_dir());
  REQUIRE(ids.size() >= kRequiredIds.size());
  for (const auto& id : ids) {
    INFO("model " << id);
    const ModelDesc m = load_model(id, models_dir());
    CHECK(m.id == id);
    CHECK(!m.description.empty());
    const double batch = ptp::test::typical_batch(m);
    const Workload w = build(m, batch, kTypicalSeqLen);
    CHECK(!w.ops.empty());
    CHECK(w.layers > 0);
    CHECK(w.params() > 0);
    CHECK(w.fwd_flops() > 0);
    // Backward = dgrad + wgrad: about twice the forward, never less than it.
    CHECK(w.bwd_flops() >= w.fwd_flops());
    CHECK(w.bwd_flops() <= 3 * w.fwd_flops());
    CHECK(w.samples == batch);
    CHECK(w.tokens == (m.sequence ? batch * kTypicalSeqLen : 0.0));
    CHECK(std::all_of(w.ops.begin(), w.ops.end(), finite_non_negative));
  }
}

TEST_CASE("FLOPs and activations scale linearly with batch, parameters do not", "[models][zoo]") {
  // Batches 5/10/15 keep the MLM head's 15% token rows whole, so the check can be tight.
  for (const auto& id : zoo_ids(models_dir())) {
    INFO("model " << id);
    const ModelDesc m = load_model(id, models_dir());
    const Workload w5 = build(m, 5, kTypicalSeqLen), w10 = build(m, 10, kTypicalSeqLen),
                   w15 = build(m, 15, kTypicalSeqLen);
    CHECK(w10.params() == w5.params());
    CHECK(w15.params() == w5.params());
    for (auto total : {&Workload::fwd_flops, &Workload::bwd_flops, &Workload::saved_elements}) {
      const double f5 = (w5.*total)(), f10 = (w10.*total)(), f15 = (w15.*total)();
      CHECK(f15 - f10 == Approx(f10 - f5).epsilon(1e-9));  // affine in batch
      const double per_batch_constant = 2 * f5 - f10;
      if (kBatchIndependentWork.count(id)) {
        CHECK(per_batch_constant > 0);
        CHECK(per_batch_constant < f5);
      } else {
        CHECK(per_batch_constant == Approx(0).margin(1e-9 * f5));  // proportional
      }
    }
  }
}

TEST_CASE("a sequence model without seq_len is an InputError", "[models][zoo]") {
  int sequence_models = 0;
  for (const auto& id : zoo_ids(models_dir())) {
    const ModelDesc m = load_model(id, models_dir());
    if (!m.sequence) continue;
    ++sequence_models;
    INFO("model " << id);
    BuildContext ctx;
    ctx.batch = 8;
    ctx.seq_len = 0;
    CHECK_THROWS_AS(build_workload(m, ctx), InputError);
    CHECK_THROWS_WITH(build_workload(m, ctx), Catch::Matchers::Contains("seq_len"));
  }
  CHECK(sequence_models >= 10);
}

TEST_CASE("sequence models grow with seq_len and GNMT attention is superlinear", "[models][zoo]") {
  for (const auto& id : zoo_ids(models_dir())) {
    const ModelDesc m = load_model(id, models_dir());
    if (!m.sequence) continue;
    INFO("model " << id);
    CHECK(build(m, 4, 256).fwd_flops() > build(m, 4, 128).fwd_flops());
  }
  // The additive-attention energies are batch x target x source x hidden: doubling the sentence
  // length more than doubles the work, but the LSTM GEMMs keep it well under 4x.
  const ModelDesc gnmt = load_model("gnmt", models_dir());
  const double ratio = build(gnmt, 128, 100).fwd_flops() / build(gnmt, 128, 50).fwd_flops();
  CHECK(ratio > 2.0);
  CHECK(ratio < 2.5);
}

TEST_CASE("recommender parameter counts follow the published architectures exactly", "[models][zoo]") {
  // NeuMF on ML-20M: GMF (64) + MLP (128 per side) embeddings for 138,493 users and 26,744 items,
  // MLP 256-256-128-64, final 128 -> 1.
  const double ncf_expected = (138493.0 + 26744.0) * (64 + 128) + (256 * 256 + 256) + (256 * 128 + 128) +
                              (128 * 64 + 64) + (128 + 1);
  CHECK(build(load_model("ncf", models_dir()), 1, 0).params() == ncf_expected);

  // DLRM dense part: bottom 13-512-256-128, top (128 + 27*26/2 = 479)-1024-1024-512-256-1.
  const Workload dlrm = build(load_model("dlrm", models_dir()), 1, 0);
  double embedding_params = 0;
  for (const auto& op : dlrm.ops)
    if (op.kind == OpKind::embedding) embedding_params += op.params;
  const double bottom = (13 * 512 + 512) + (512 * 256 + 256) + (256 * 128 + 128);
  const double top = (479 * 1024 + 1024) + (1024 * 1024 + 1024) + (1024 * 512 + 512) + (512 * 256 + 256) + (256 + 1);
  CHECK(dlrm.params() - embedding_params == bottom + top);
  CHECK(embedding_params / 128 == Approx(32.7e6).epsilon(0.01));  // 32.7M rows at frequency threshold 15
}

TEST_CASE("WideSE squeeze layers are a quarter of the expanded channels, the paper's of the input", "[models][zoo]") {
  // Stage 2's first block of B0: 16 input channels expanded 6x to 96. Its SE reduce layer is 96 -> 4
  // (16 / 4) in EfficientNet-B0 and 96 -> 24 (96 / 4) in DLE's WideSE-B0; everything else is equal.
  auto se_reduce_of_stage2 = [](const std::string& id) {
    const Workload w = build(load_model(id, models_dir()), 1, 0);
    for (const auto& op : w.ops)
      if (op.name.find("stage2.block0") != std::string::npos && op.name.find("se_reduce") != std::string::npos)
        return op.params;
    return -1.0;
  };
  CHECK(se_reduce_of_stage2("efficientnet-b0") == 96 * 4 + 4);
  CHECK(se_reduce_of_stage2("efficientnet-widese-b0") == 96 * 24 + 24);
  const Workload paper = build(load_model("efficientnet-b0", models_dir()), 1, 0);
  const Workload wide = build(load_model("efficientnet-widese-b0", models_dir()), 1, 0);
  CHECK(wide.ops.size() == paper.ops.size());
  CHECK(wide.params() > 1.5 * paper.params());  // 8.4M against 5.3M: the SE layers dominate the difference
  CHECK(ptp::test::gemm_macs(wide) == Approx(ptp::test::gemm_macs(paper)).epsilon(0.02));
}

TEST_CASE("EfficientNetV2 fuses expansion and depthwise conv in its early stages", "[models][zoo]") {
  const Workload w = build(load_model("efficientnet-v2-s", models_dir()), 1, 0);
  auto op_named = [&](const std::string& part) -> const Op* {
    for (const auto& op : w.ops)
      if (op.name.find(part) != std::string::npos) return &op;
    return nullptr;
  };
  // Stage 1 (expansion 1): one 3x3 conv 24 -> 24. Stage 2: a 3x3 stride-2 conv 24 -> 96 (4x), then
  // a 1x1 projection 96 -> 48. Neither has a depthwise conv or squeeze-excitation.
  const Op* stage1 = op_named("stage1.block0.fused_conv");
  const Op* stage2 = op_named("stage2.block0.fused_expand_conv");
  REQUIRE(stage1 != nullptr);
  REQUIRE(stage2 != nullptr);
  CHECK(stage1->params == 24 * 24 * 9);
  CHECK(stage2->params == 24 * 96 * 9);
  CHECK(op_named("stage2.block0.project_conv")->params == 96 * 48);
  for (const char* absent : {"stage1.block0.dw_conv", "stage3.block0.dw_conv", "stage3.block0.se_reduce"})
    CHECK(op_named(absent) == nullptr);
  // Stage 4 is a classic MBConv with SE a quarter of its 64 input channels: 256 -> 16.
  REQUIRE(op_named("stage4.block0.se_reduce") != nullptr);
  CHECK(op_named("stage4.block0.se_reduce")->params == 256 * 16 + 16);
}

TEST_CASE("a Fused-MBConv block without expansion squeezes its input before the k x k projection", "[models][zoo]") {
  // DLE's fused_mb_conv_block applies squeeze-excitation whether or not the block expands; without
  // expansion the k x k conv is the projection, so the SE acts on the input channels (24 here).
  const std::string path = ptp::test::write_temp_file("fused-se.yaml", R"(id: fused-se
family: efficientnet
description: "one Fused-MBConv stage without expansion, with squeeze-excitation"
sample_unit: images
params:
  stem: 24
  stages:
    - {expand: 1, kernel: 3, stride: 1, out: 24, repeats: 1, se: 0.25, fused: true}
)");
  const Workload w = build(load_model(path, models_dir()), 1, 0);
  std::vector<std::string> names;
  for (const auto& op : w.ops)
    if (op.name.find("stage1.block0.") != std::string::npos) names.push_back(op.name.substr(op.name.rfind('.') + 1));
  const auto at = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) - names.begin(); };
  REQUIRE(at("se_reduce") < static_cast<long>(names.size()));
  REQUIRE(at("fused_conv") < static_cast<long>(names.size()));
  CHECK(at("se_reduce") < at("fused_conv"));
  CHECK(at("project_conv") == static_cast<long>(names.size()));  // no separate 1x1 projection
  for (const auto& op : w.ops)
    if (op.name.find("stage1.block0.se_reduce") != std::string::npos) CHECK(op.params == 24 * 6 + 6);
}

TEST_CASE("only models that normalise their embeddings get an embedding norm", "[models][zoo]") {
  auto norms_before_first_block = [](const std::string& id) {
    const ModelDesc m = load_model(id, models_dir());
    const Workload w = build(m, 2, kTypicalSeqLen);
    int norms = 0;
    for (const auto& op : w.ops) {
      if (op.in_block) break;
      if (op.kind == OpKind::norm) ++norms;
    }
    return norms;
  };
  // BERT's and ELECTRA's LayerNorm over word + position + type embeddings; BART's layernorm_embedding.
  for (const char* id : {"bert-large", "electra-base"}) {
    INFO(id);
    CHECK(norms_before_first_block(id) == 1);
  }
  CHECK(norms_before_first_block("bart-large") == 1);
  // Pre-norm decoders normalise inside each block only; T5 neither.
  for (const char* id : {"gpt2", "llama3-8b", "mistral-7b", "opt-1.3b", "t5-base"}) {
    INFO(id);
    CHECK(norms_before_first_block(id) == 0);
  }
}

TEST_CASE("Gemma 2's soft caps keep their tanh outputs and an FP32 softmax; uncapped models have none",
          "[models][zoo]") {
  const double B = 2, S = kTypicalSeqLen;
  const Workload w = build(load_model("gemma2-2b", models_dir()), B, S);
  auto named = [&](const std::string& name) -> const Op& {
    const auto it = std::find_if(w.ops.begin(), w.ops.end(), [&](const Op& o) { return o.name == name; });
    if (it == w.ops.end()) FAIL("no op " << name);
    return *it;
  };
  // HF attn_logit_softcapping 50 on 8 heads' S x S scores per sequence, every layer (local ones too:
  // the eager path scores all keys and masks the window).
  const double scores = B * 8 * S * S;
  const Op& cap = named("layer0.self_attn_softcap");
  CHECK(cap.saved == scores);
  CHECK(cap.on_scores);
  CHECK(named("layer1.self_attn_softcap").saved == scores);
  CHECK(named("layer0.self_attn_softmax").eager_extra_saved == scores);
  // final_logit_softcapping 30 on every logit, split over the vocabulary like the logits.
  const Op& logits = named("lm_softcap");
  CHECK(logits.saved == B * S * 256000);
  CHECK(logits.tp_role == TpRole::vocab);
  // Gemma 1 and Llama have no caps.
  for (const char* id : {"gemma-2b", "llama3-8b"}) {
    INFO(id);
    const Workload u = build(load_model(id, models_dir()), B, S);
    CHECK(std::none_of(u.ops.begin(), u.ops.end(),
                       [](const Op& o) { return o.name.find("softcap") != std::string::npos; }));
  }
}
