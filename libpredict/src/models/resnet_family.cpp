// ResNet / ResNeXt / SE-ResNeXt (v1.5: stride on the 3x3 conv), optionally truncated for detection
// backbones.
#include <cmath>

#include "ptp/predict/model_zoo.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

void generate_resnet(const YamlReader& p, const BuildContext& ctx, GraphBuilder& g) {
  p.check_keys({"blocks", "block", "width", "groups", "width_per_group", "se_reduction", "num_classes", "image",
                "image_width", "channels", "stages", "head"});
  const auto blocks = p.child("blocks").as_number_list(0, 1000);
  const bool bottleneck = p.get_string("block", "bottleneck") == "bottleneck";
  const double width = p.get_number("width", 1, 1e5, 64);
  const double groups = p.get_number("groups", 1, 1e4, 1);
  const double width_per_group = p.get_number("width_per_group", 1, 1e5, 64);
  const double se_reduction = p.get_number("se_reduction", 0, 1e4, 0);
  const double classes = p.get_number("num_classes", 0, 1e7, 1000);
  const double image_h = p.get_number("image", 8, 1e5, 224);
  const double image_w = p.get_number("image_width", 8, 1e5, image_h);
  const double in_ch = p.get_number("channels", 1, 1e4, 3);
  const auto stages = static_cast<std::size_t>(p.get_int("stages", 1, 16, static_cast<std::int64_t>(blocks.size())));
  const std::string head = p.get_string("head", "classify");
  const double B = ctx.batch;

  g.begin_layer();
  auto sp = g.conv2d("stem_conv", B, in_ch, {image_h, image_w}, width, 7, 2, 1, false, false);
  g.batch_norm("stem_bn", B * width * sp.h * sp.w, width);
  g.elementwise("stem_relu", B * width * sp.h * sp.w, 1, 1);
  GraphBuilder::Spatial pooled{std::ceil(sp.h / 2), std::ceil(sp.w / 2)};
  g.pooling("stem_maxpool", B * width * sp.h * sp.w, B * width * pooled.h * pooled.w);
  sp = pooled;
  double channels = width;
  const double expansion = bottleneck ? 4 : 1;
  for (std::size_t s = 0; s < std::min(stages, blocks.size()); ++s) {
    const double planes = width * std::pow(2.0, static_cast<double>(s));
    const double mid = bottleneck ? std::floor(planes * width_per_group / 64.0) * groups : planes;
    const double out = planes * expansion;
    for (int b = 0; b < static_cast<int>(blocks[s]); ++b) {
      g.begin_layer();
      g.set_prefix("stage" + std::to_string(s + 1) + ".block" + std::to_string(b));
      const double stride = (b == 0 && s > 0) ? 2 : 1;
      const GraphBuilder::Spatial in_sp = sp;
      GraphBuilder::Spatial cur = sp;
      if (bottleneck) {
        cur = g.conv2d("conv1", B, channels, cur, mid, 1, 1);
        g.batch_norm("bn1", B * mid * cur.h * cur.w, mid);
        g.elementwise("relu1", B * mid * cur.h * cur.w, 1, 1);
        cur = g.conv2d("conv2", B, mid, cur, mid, 3, stride, groups);
        g.batch_norm("bn2", B * mid * cur.h * cur.w, mid);
        g.elementwise("relu2", B * mid * cur.h * cur.w, 1, 1);
        cur = g.conv2d("conv3", B, mid, cur, out, 1, 1);
      } else {
        cur = g.conv2d("conv1", B, channels, cur, out, 3, stride);
        g.batch_norm("bn1", B * out * cur.h * cur.w, out);
        g.elementwise("relu1", B * out * cur.h * cur.w, 1, 1);
        cur = g.conv2d("conv2", B, out, cur, out, 3, 1);
      }
      const double out_elems = B * out * cur.h * cur.w;
      g.batch_norm("bn3", out_elems, out);
      if (se_reduction > 0) {
        const double squeezed = std::max(1.0, std::floor(out / se_reduction));
        g.pooling("se_pool", out_elems, B * out);
        g.linear("se_fc1", B, out, squeezed);
        g.elementwise("se_relu", B * squeezed, 1, 1);
        g.linear("se_fc2", B, squeezed, out);
        g.elementwise("se_sigmoid", B * out, 1, 4);
        g.elementwise("se_scale", out_elems, 2, 1);
      }
      if (b == 0) {
        g.conv2d("downsample", B, channels, in_sp, out, 1, stride);
        g.batch_norm("downsample_bn", out_elems, out);
      }
      g.elementwise("residual_add_relu", out_elems, 2, 2);
      channels = out;
      sp = cur;
    }
  }
  g.set_prefix("");
  if (head == "classify") {
    g.begin_layer();
    g.pooling("avgpool", B * channels * sp.h * sp.w, B * channels);
    g.linear("fc", B, channels, classes);
    g.loss("loss", B, classes);
  } else if (head != "none") {
    p.child("head").fail("expected classify | none");
  }
}

}  // namespace ptp::predict
