// Explicit layer lists and compositions of families: detection heads on a ResNet backbone, speech
// models, U-Nets, ELECTRA generator + discriminator. Sizes are per sample; `scale: seq_len`
// multiplies them by the job's sequence length.
#include "ptp/predict/model_zoo.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {
constexpr std::int64_t kMaxRepeat = 10000;
// Block iterations one model may expand to across all nesting levels (repeat x nested repeat x ...).
constexpr std::int64_t kMaxExpandedBlocks = 10000;

// How many block iterations generating `params` takes, counting a nested composite's blocks once per
// repeat of the block that holds it; stops as soon as the count passes `limit`. Nested blocks that
// add no ops (empty composites) still count, and aliased YAML nodes count at every reference, so a
// repeat-of-repeat or anchor/alias bomb is refused before any work is done. Malformed blocks count as
// one; generation reports them with their location.
std::int64_t expansion(const YamlReader& params, std::int64_t limit, int depth) {
  if (depth > 4) params.fail("models nest more than 4 levels deep");  // as generate_family says, but before any work
  if (!params.is_map() || !params.has("blocks")) return 0;
  const auto blocks = params.child("blocks");
  if (!blocks.is_sequence()) return 0;
  std::int64_t total = 0;
  for (std::size_t i = 0; i < blocks.size() && total <= limit; ++i) {
    const auto b = blocks.element(i);
    std::int64_t repeat = 1;
    if (b.is_map() && b.has("repeat")) repeat = b.get_int("repeat", 1, kMaxRepeat);
    std::int64_t inner = 0;
    if (b.is_map() && b.has("family") && b.child("family").is_scalar() && b.get_string("family") == "composite" &&
        b.has("params"))
      inner = expansion(b.child("params"), (limit - total) / repeat, depth + 1);
    total += repeat * (1 + inner);
  }
  return total;
}

void explicit_op(const YamlReader& b, const BuildContext& ctx, GraphBuilder& g) {
  const std::string op = b.get_string("op");
  const std::string name = b.get_string("name", op);
  const double B = ctx.batch;
  double scale = 1;
  if (b.has("scale")) {
    if (b.get_string("scale") != "seq_len") b.child("scale").fail("expected seq_len");
    if (ctx.seq_len <= 0) b.fail("seq_len is required for this sequence model");
    scale = ctx.seq_len;
  }
  auto num = [&](const char* key, double fallback = -1) {
    return fallback < 0 ? b.get_number(key, 0, 1e12) : b.get_number(key, 0, 1e12, fallback);
  };
  if (op == "conv2d") {
    b.check_keys({"op", "name", "repeat", "same_layer", "scale", "in_channels", "out_channels", "size", "width",
                  "kernel", "stride", "groups", "bias", "input_grad"});
    const double h = num("size"), w = num("width", h);
    g.conv2d(name, B * scale, num("in_channels"), {h, w}, num("out_channels"), std::max(1.0, num("kernel", 3)),
             std::max(1.0, num("stride", 1)), std::max(1.0, num("groups", 1)), b.get_bool("bias", false),
             b.get_bool("input_grad", true));
  } else if (op == "conv1d") {
    b.check_keys({"op", "name", "repeat", "same_layer", "scale", "in_channels", "out_channels", "length", "kernel",
                  "stride", "bias"});
    g.conv1d(name, B * scale, num("in_channels"), num("length"), num("out_channels"), std::max(1.0, num("kernel", 3)),
             std::max(1.0, num("stride", 1)), 1, b.get_bool("bias", true));
  } else if (op == "linear") {
    b.check_keys({"op", "name", "repeat", "same_layer", "scale", "rows", "in", "out", "bias", "input_grad"});
    g.linear(name, B * scale * num("rows", 1), num("in"), num("out"), b.get_bool("bias", true),
             b.get_bool("input_grad", true));
  } else if (op == "bmm") {
    b.check_keys({"op", "name", "repeat", "same_layer", "scale", "batch", "m", "n", "k"});
    g.bmm(name, B * scale * num("batch", 1), num("m"), num("n"), num("k"));
  } else if (op == "norm") {
    b.check_keys({"op", "name", "repeat", "same_layer", "scale", "elements", "channels", "type"});
    const std::string type = b.get_string("type", "layer");
    if (type == "batch") g.batch_norm(name, B * scale * num("elements"), num("channels", 0));
    else if (type == "layer") g.norm(name, B * scale * num("elements"), num("channels", 0));
    else b.child("type").fail("expected batch or layer (layer also covers RMS norm)");
  } else if (op == "softmax") {
    b.check_keys({"op", "name", "repeat", "same_layer", "scale", "elements"});
    g.softmax(name, B * scale * num("elements"));
  } else if (op == "elementwise") {
    b.check_keys({"op", "name", "repeat", "same_layer", "scale", "elements", "inputs", "flops"});
    g.elementwise(name, B * scale * num("elements"), std::max(1.0, num("inputs", 1)), num("flops", 1));
  } else if (op == "embedding") {
    b.check_keys({"op", "name", "repeat", "same_layer", "scale", "lookups", "dim", "rows"});
    g.embedding(name, B * scale * num("lookups", 1), num("dim"), num("rows"));
  } else if (op == "pooling") {
    b.check_keys({"op", "name", "repeat", "same_layer", "scale", "elements_in", "elements_out"});
    g.pooling(name, B * scale * num("elements_in"), B * scale * num("elements_out"));
  } else if (op == "lstm" || op == "gru") {
    b.check_keys({"op", "name", "repeat", "same_layer", "scale", "steps", "in", "hidden", "bidirectional"});
    const double steps = b.has("steps") ? num("steps") : scale;
    g.rnn(name, B, std::max(1.0, steps), num("in"), num("hidden"), op == "lstm" ? 4 : 3,
          b.get_bool("bidirectional", false));
  } else if (op == "loss") {
    b.check_keys({"op", "name", "repeat", "same_layer", "scale", "rows", "classes"});
    g.loss(name, B * scale * num("rows", 1), std::max(1.0, num("classes", 1)));
  } else {
    b.child("op").fail("unknown op '" + op +
                       "'; expected conv2d | conv1d | linear | bmm | norm | softmax | elementwise | embedding | "
                       "pooling | lstm | gru | loss");
  }
}
}  // namespace

void generate_composite(const YamlReader& p, const BuildContext& ctx, GraphBuilder& g) {
  p.check_keys({"blocks"});
  const auto blocks = p.child("blocks");
  if (!blocks.is_sequence()) blocks.fail("expected a list of blocks");
  if (blocks.size() > static_cast<std::size_t>(kMaxExpandedBlocks))
    blocks.fail("more than " + std::to_string(kMaxExpandedBlocks) + " blocks");
  if (ctx.depth == 0 && expansion(p, kMaxExpandedBlocks, 0) > kMaxExpandedBlocks)
    blocks.fail("expands to more than " + std::to_string(kMaxExpandedBlocks) +
                " blocks (repeat x nested repeat); refusing an absurd model graph");
  const std::string outer = g.prefix();
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const auto b = blocks.element(i);
    b.expect_map();
    const auto repeat = b.get_int("repeat", 1, kMaxRepeat, 1);
    for (std::int64_t r = 0; r < repeat; ++r) {
      if (!b.get_bool("same_layer", false)) g.begin_layer();
      if (b.has("family")) {
        b.check_keys({"family", "params", "repeat", "name", "same_layer"});
        BuildContext inner = ctx;
        inner.depth = ctx.depth + 1;
        g.set_prefix(b.get_string("name", b.get_string("family")) + (repeat > 1 ? std::to_string(r) : ""));
        generate_family(b.get_string("family"), b.child("params"), inner, g);
        g.set_prefix(outer);
      } else {
        explicit_op(b, ctx, g);
      }
    }
  }
}

}  // namespace ptp::predict
