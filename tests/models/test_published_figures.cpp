// Computed parameter counts and forward MACs against the `published:` figures of every zoo YAML.
//
// Tolerances (relative):
//   params  2%  counts taken from code or given to 3+ significant figures: GPT-2 124M/355M/774M/1558M,
//               Llama 2 7B / Llama 3 8B / 70B, EfficientNet-B0 (5.3M), Mask R-CNN (torchvision count)
//           5%  the ResNet family (ResNet-50 25.6M, ResNet-101, ResNeXt, SE-ResNeXt)
//           3%  everything else: paper figures rounded to 2-3 significant figures (BERT-large 340M,
//               GPT-3, OPT, ViT, EfficientNet-B4 19M, ...)
//   MACs    5%  forward GEMM/conv multiply-adds per sample (ResNet-50 4.1 GMAC at 224x224, EfficientNet
//               B0 0.39 / B4 4.2 GMAC)
// Models whose generator cannot express a published detail are listed in kKnownDiscrepancies and
// checked by [!shouldfail] cases, so the suite turns red once the generator learns the detail.
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "zoo_test_support.hpp"
using namespace ptp::predict;
using ptp::test::build;
using ptp::test::models_dir;

namespace {

double params_tolerance(const std::string& id) {
  static const std::map<std::string, double> tolerance = {
      {"gpt2", 0.02},         {"gpt2-medium", 0.02},         {"gpt2-large", 0.02},       {"gpt2-xl", 0.02},
      {"llama2-7b", 0.02},    {"llama3-8b", 0.02},           {"llama3-70b", 0.02},       {"efficientnet-b0", 0.02},
      {"maskrcnn-r50-fpn", 0.02}, {"resnet50", 0.05},        {"resnet101", 0.05},        {"resnext101-32x4d", 0.05},
      {"se-resnext101-32x4d", 0.05}};
  auto it = tolerance.find(id);
  return it == tolerance.end() ? 0.03 : it->second;
}
constexpr double kMacsTolerance = 0.05;
constexpr int kSeqLen = 128;

// Transformer-XL large with adaptive input embeddings computes 283M against the paper's 257M; the
// remaining 10% is not explained by the published architecture description.
const std::set<std::string> kKnownDiscrepancies = {"transformer-xl-large"};

double computed_params_m(const std::string& id) {
  return build(load_model(id, models_dir()), 1, kSeqLen).params() / 1e6;
}

void check_published_params(const std::string& id) {
  const ModelDesc m = load_model(id, models_dir());
  REQUIRE(m.published.count("params_m") == 1);
  const double published = m.published.at("params_m");
  const double computed = build(m, 1, kSeqLen).params() / 1e6;
  INFO("model " << id << ": computed " << computed << "M, published " << published << "M");
  CHECK(computed == Approx(published).epsilon(params_tolerance(id)));
}
}  // namespace

TEST_CASE("parameter counts match the published figures", "[models][published]") {
  int checked = 0;
  for (const auto& id : zoo_ids(models_dir())) {
    const ModelDesc m = load_model(id, models_dir());
    if (m.published.count("params_m") == 0 || kKnownDiscrepancies.count(id)) continue;
    check_published_params(id);
    ++checked;
  }
  CHECK(checked >= 20);
}

TEST_CASE("forward MACs per sample match the published figures", "[models][published]") {
  int checked = 0;
  for (const auto& id : zoo_ids(models_dir())) {
    const ModelDesc m = load_model(id, models_dir());
    if (m.published.count("forward_gmacs") == 0) continue;
    const double published = m.published.at("forward_gmacs");
    const double computed = ptp::test::gemm_macs(build(m, 1, kSeqLen)) / 1e9;
    INFO("model " << id << ": computed " << computed << " GMAC, published " << published << " GMAC");
    CHECK(computed == Approx(published).epsilon(kMacsTolerance));
    ++checked;
  }
  CHECK(checked >= 6);
}

TEST_CASE("anchor figures from the brief", "[models][published]") {
  CHECK(computed_params_m("resnet50") == Approx(25.6).epsilon(0.05));
  CHECK(ptp::test::gemm_macs(build(load_model("resnet50", models_dir()), 1, 0)) / 1e9 ==
        Approx(4.1).epsilon(0.05));
  CHECK(computed_params_m("bert-large") == Approx(340).epsilon(0.03));
  CHECK(computed_params_m("gpt2") == Approx(124).epsilon(0.02));
  CHECK(computed_params_m("gpt2-medium") == Approx(355).epsilon(0.02));
  CHECK(computed_params_m("gpt2-large") == Approx(774).epsilon(0.02));
  CHECK(computed_params_m("gpt2-xl") == Approx(1558).epsilon(0.02));
  CHECK(computed_params_m("llama3-8b") == Approx(8030).epsilon(0.02));
}

// The documented gap (configs/models/README.md): Transformer-XL large computes 282.9M with adaptive
// input embeddings against the paper's 257M. Pinned here so that a change to the count is seen; when
// one explains the gap, the model joins the published check above.
TEST_CASE("transformer-xl-large computes the documented 282.9M, 10 % above the published 257M", "[models][published]") {
  const ModelDesc m = load_model("transformer-xl-large", models_dir());
  const double computed = computed_params_m("transformer-xl-large");
  CHECK(computed == Approx(282.9).epsilon(0.002));
  CHECK(computed / m.published.at("params_m") == Approx(1.10).epsilon(0.01));
}

TEST_CASE("shared encoder/decoder embeddings are counted once", "[models][published]") {
  CHECK(computed_params_m("bart-large") == Approx(406).epsilon(0.03));
  CHECK(computed_params_m("t5-base") == Approx(220).epsilon(0.03));
  CHECK(computed_params_m("transformer-big") == Approx(213).epsilon(0.03));
}
