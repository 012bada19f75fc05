// Hugging Face config.json import: real published configs produce the same parameter count as the
// hand-written zoo YAML of the same model.
#include <catch2/catch.hpp>

#include "ptp/vocab/error.hpp"
#include "zoo_test_support.hpp"

using namespace ptp::predict;
using ptp::test::build;
using ptp::test::hf_dir;
using ptp::test::models_dir;

TEST_CASE("HF configs import to the same parameter counts as the zoo YAMLs", "[models][hf]") {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"bert-large-uncased.json", "bert-large"},
      {"gpt2.json", "gpt2"},
      {"opt-1.3b.json", "opt-1.3b"},
      {"meta-llama-3-8b.json", "llama3-8b"},
  };
  for (const auto& [file, zoo_id] : pairs) {
    INFO(file << " vs " << zoo_id);
    // load_model dispatches on the .json extension.
    const ModelDesc imported = load_model(hf_dir() + "/" + file, models_dir());
    CHECK(imported.family == "transformer");
    CHECK(imported.sequence);
    const ModelDesc zoo = load_model(zoo_id, models_dir());
    const double hf_params = build(imported, 2, 128).params();
    CHECK(hf_params == build(zoo, 2, 128).params());
    CHECK(build(imported, 2, 128).fwd_flops() > 0);
  }
}

TEST_CASE("HF import takes the repository name when the config carries one", "[models][hf]") {
  CHECK(import_hf_config(hf_dir() + "/opt-1.3b.json").id == "facebook/opt-1.3b");
  CHECK(import_hf_config(hf_dir() + "/gpt2.json").id == "gpt2");  // no _name_or_path: the model_type
}

TEST_CASE("HF import of a missing file is an InputError naming it", "[models][hf]") {
  const std::string path = hf_dir() + "/no-such-config.json";
  CHECK_THROWS_AS(load_model(path, models_dir()), InputError);
  CHECK_THROWS_WITH(load_model(path, models_dir()), Catch::Matchers::Contains("no-such-config.json"));
}
