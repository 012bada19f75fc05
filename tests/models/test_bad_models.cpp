// Malformed model YAMLs fail with an InputError that names the file and the offending field, whether
// the problem shows when loading (family, top-level keys) or when building (family parameters).
#include <catch2/catch.hpp>

#include "ptp/vocab/error.hpp"
#include "zoo_test_support.hpp"

using namespace ptp::predict;

namespace {
// Loads and builds like the CLI does; returns the error message ("" when nothing failed).
std::string error_of(const std::string& file) {
  const std::string path = ptp::test::bad_models_dir() + "/" + file;
  try {
    const ModelDesc m = load_model(path, ptp::test::models_dir());
    BuildContext ctx;
    ctx.batch = 2;
    ctx.seq_len = 128;
    build_workload(m, ctx);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("bad model YAMLs are InputErrors naming file and field", "[models][errors]") {
  struct Case {
    std::string file, field, problem;
  };
  const std::vector<Case> cases = {
      {"unknown_family.yaml", "family", "unknown model family 'resnext_v9'"},
      {"unknown_key.yaml", "params.blokcs", "unknown key"},
      {"negative_size.yaml", "params.hidden", "out of range"},
      {"huge_repeat.yaml", "params.blocks[0].repeat", "out of range"},
      {"deep_nesting.yaml", "params.blocks[0].params.blocks[0]", "nest more than 4 levels"},
      {"unknown_op.yaml", "params.blocks[0].op", "unknown op 'conv3d'"},
      {"unknown_norm_type.yaml", "params.blocks[1].type", "expected batch or layer"},
      {"efficientnet_negative_width.yaml", "params.width", "out of range"},
      {"efficientnet_bad_se_base.yaml", "params.se_base", "expected input | expanded"},
      {"efficientnet_bad_stage.yaml", "params.stages[0].repeat", "unknown key"},
      {"recommender_negative_rows.yaml", "params.tables[1]", "out of range"},
      {"seq2seq_unknown_key.yaml", "params.atention", "unknown key"},
  };
  for (const auto& c : cases) {
    INFO(c.file);
    const std::string message = error_of(c.file);
    CHECK_THAT(message, Catch::Matchers::Contains(c.file));
    CHECK_THAT(message, Catch::Matchers::Contains(c.field));
    CHECK_THAT(message, Catch::Matchers::Contains(c.problem));
  }
}

TEST_CASE("four levels of nesting are accepted", "[models][errors]") {
  // deep_nesting.yaml minus one level, written in memory.
  const std::string text =
      "id: nest4\nfamily: composite\nparams:\n  blocks:\n"
      "    - {family: composite, params: {blocks: [{family: composite, params: {blocks: [\n"
      "        {family: composite, params: {blocks: [{family: composite, params: {blocks: [\n"
      "          {op: linear, name: fc, in: 8, out: 8}]}}]}}]}}]}}\n";
  const ModelDesc m = parse_model_yaml(YamlReader::load_string(text, "nest4.yaml"));
  BuildContext ctx;
  ctx.batch = 1;
  CHECK(build_workload(m, ctx).params() == 8 * 8 + 8);
}
