// EfficientNet (Tan & Le 2019): the B0 MBConv stage table, compound-scaled by width and depth
// multipliers (B1..B7 differ only in width, depth and resolution). Depthwise convs are grouped
// conv2d with groups = channels; padding is "same", so every stride-2 layer halves the map (ceil).
// EfficientNetV2 (Tan & Le 2021) gives its own stage table (`stages:`), whose early stages are
// Fused-MBConv: one k x k conv in place of the 1x1 expansion and the depthwise conv.
#include <cmath>
#include <string>
#include <vector>

#include "ptp/predict/model_zoo.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {
struct MbStage {
  double expand, kernel, stride, out, repeats;
  double se = -1;  // squeeze-excitation ratio; -1: the model's se_ratio
  bool fused = false;
};
// Table 1 of the paper (stages 2..8): MBConv expansion, kernel, stride, output channels, layers.
const std::vector<MbStage> kB0Stages = {{1, 3, 1, 16, 1},  {6, 3, 2, 24, 2},  {6, 5, 2, 40, 2},  {6, 3, 2, 80, 3},
                                        {6, 5, 1, 112, 3}, {6, 5, 2, 192, 4}, {6, 3, 1, 320, 1}};

std::vector<MbStage> read_stages(const YamlReader& list) {
  if (!list.is_sequence() || list.size() == 0) list.fail("expected a list of stages");
  std::vector<MbStage> stages;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YamlReader st = list.element(i);
    st.check_keys({"expand", "kernel", "stride", "out", "repeats", "se", "fused"});
    MbStage m{st.get_number("expand", 1, 64), st.get_number("kernel", 1, 15), st.get_number("stride", 1, 4),
              st.get_number("out", 1, 1e5), st.get_number("repeats", 1, 100)};
    m.se = st.get_number("se", 0, 1, -1);
    m.fused = st.get_bool("fused", false);
    stages.push_back(m);
  }
  return stages;
}

// The reference implementation's round_filters: scale, round to a multiple of `divisor`, never
// drop more than 10%.
double round_filters(double filters, double width, double divisor) {
  const double scaled = filters * width;
  double rounded = std::max(divisor, std::floor((scaled + divisor / 2) / divisor) * divisor);
  if (rounded < 0.9 * scaled) rounded += divisor;
  return rounded;
}

// swish(x) = x * sigmoid(x): exp, add, divide, multiply
constexpr double kSwishFlops = 5;
}  // namespace

void generate_efficientnet(const YamlReader& p, const BuildContext& ctx, GraphBuilder& g) {
  p.check_keys(
      {"width", "depth", "image", "num_classes", "channels", "se_ratio", "se_base", "divisor", "stem", "head_channels",
       "stages"});
  const double width = p.get_number("width", 0.1, 10, 1.0);
  const double depth = p.get_number("depth", 0.1, 10, 1.0);
  const double image = p.get_number("image", 32, 1e5, 224);
  const double classes = p.get_number("num_classes", 1, 1e7, 1000);
  const double in_ch = p.get_number("channels", 1, 1e4, 3);
  const double se_ratio = p.get_number("se_ratio", 0, 1, 0.25);
  // What the squeeze width is a fraction of: the block's input channels (the paper's code) or its
  // expanded channels (DLE's EfficientNet-WideSE models, squeeze_hidden=True).
  const std::string se_base = p.get_string("se_base", "input");
  if (se_base != "input" && se_base != "expanded") p.child("se_base").fail("expected input | expanded");
  const double divisor = p.get_number("divisor", 1, 1024, 8);
  const double stem = round_filters(p.get_number("stem", 1, 1e5, 32), width, divisor);
  const double head = round_filters(p.get_number("head_channels", 1, 1e6, 1280), width, divisor);
  const double B = ctx.batch;
  const std::vector<MbStage> stages = p.has("stages") ? read_stages(p.child("stages")) : kB0Stages;

  // A conv, its batch norm and, unless it projects, a swish: the unit every stage is built from.
  auto conv_bn = [&](const std::string& unit, double cin, GraphBuilder::Spatial in, double cout, double kernel,
                     double stride, double groups, bool swish, bool input_grad = true) {
    auto name = [&](const char* part) { return unit.empty() ? std::string(part) : unit + "_" + part; };
    const auto out = g.conv2d(name("conv"), B, cin, in, cout, kernel, stride, groups, false, input_grad);
    const double elems = B * cout * out.h * out.w;
    g.batch_norm(name("bn"), elems, cout);
    if (swish) g.elementwise(name("swish"), elems, 1, kSwishFlops);
    return out;
  };

  g.begin_layer();
  g.set_prefix("stem");
  auto sp = conv_bn("", in_ch, {image, image}, stem, 3, 2, 1, true, /*input_grad=*/false);

  double channels = stem;
  int stage_index = 0;
  for (const auto& st : stages) {
    ++stage_index;
    const double out = round_filters(st.out, width, divisor);
    const int repeats = static_cast<int>(std::ceil(depth * st.repeats));
    for (int r = 0; r < repeats; ++r) {
      g.begin_layer();
      g.set_prefix("stage" + std::to_string(stage_index) + ".block" + std::to_string(r));
      const double stride = r == 0 ? st.stride : 1;
      const double expanded = channels * st.expand;
      // A Fused-MBConv block without expansion has no expansion conv: its k x k conv is the
      // projection (DLE's fused_mb_conv_block), after the squeeze-excitation if it has one.
      const bool fused_projection = st.fused && st.expand == 1;
      GraphBuilder::Spatial mid = sp;
      if (st.fused && !fused_projection) {
        mid = conv_bn("fused_expand", channels, sp, expanded, st.kernel, stride, 1, true);
      } else if (!st.fused) {
        if (st.expand != 1) conv_bn("expand", channels, sp, expanded, 1, 1, 1, true);
        mid = conv_bn("dw", expanded, sp, expanded, st.kernel, stride, expanded, true);
      }
      const double mid_elems = B * expanded * mid.h * mid.w;
      const double stage_se = st.se >= 0 ? st.se : se_ratio;
      if (stage_se > 0) {
        const double squeezed = std::max(1.0, std::floor((se_base == "expanded" ? expanded : channels) * stage_se));
        g.pooling("se_pool", mid_elems, B * expanded);
        g.linear("se_reduce", B, expanded, squeezed);
        g.elementwise("se_swish", B * squeezed, 1, kSwishFlops);
        g.linear("se_expand", B, squeezed, expanded);
        g.elementwise("se_sigmoid", B * expanded, 1, 4);
        g.elementwise("se_scale", mid_elems, 2, 1);
      }
      const auto out_sp = fused_projection ? conv_bn("fused", channels, sp, out, st.kernel, stride, 1, true)
                                           : conv_bn("project", expanded, mid, out, 1, 1, 1, false);
      if (stride == 1 && channels == out) {
        // drop-connect (stochastic depth) mask + residual add
        g.elementwise("drop_connect_add", B * out * out_sp.h * out_sp.w, 2, 2);
      }
      channels = out;
      sp = out_sp;
    }
  }

  g.begin_layer();
  g.set_prefix("head");
  conv_bn("", channels, sp, head, 1, 1, 1, true);
  g.pooling("avgpool", B * head * sp.h * sp.w, B * head);
  g.elementwise("dropout", B * head, 1, 2);
  g.linear("fc", B, head, classes);
  g.loss("loss", B, classes);
  g.set_prefix("");
}

}  // namespace ptp::predict
