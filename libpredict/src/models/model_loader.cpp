#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "ptp/predict/model_zoo.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/suggest.hpp"

namespace fs = std::filesystem;

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

FamilyGenerator find_family(const std::string& name, const YamlReader& where) {
  std::vector<std::string> names;
  for (const auto& f : model_families()) {
    if (name == f.name) return f.generate;
    names.emplace_back(f.name);
  }
  where.fail("unknown model family '" + name + "'" + did_you_mean(name, names));
}

void generate_family(const std::string& family, const YamlReader& params, const BuildContext& ctx, GraphBuilder& g) {
  if (ctx.depth > 4) params.fail("models nest more than 4 levels deep");
  find_family(family, params)(params, ctx, g);
}

ModelDesc parse_model_yaml(const YamlReader& doc) {
  doc.check_keys({"id", "family", "description", "sample_unit", "sequence", "params", "published", "source", "notes"});
  ModelDesc m;
  m.id = doc.get_string("id");
  m.family = doc.get_string("family");
  find_family(m.family, doc.child("family"));
  m.description = doc.get_string("description", "");
  m.sample_unit = doc.get_string("sample_unit", "samples");
  static const std::vector<std::string> units{"images", "sequences", "samples", "utterances", "tokens"};
  if (std::find(units.begin(), units.end(), m.sample_unit) == units.end())
    doc.child("sample_unit").fail("expected one of images | sequences | samples | utterances | tokens");
  m.sequence = doc.get_bool("sequence", false);
  m.params = doc.child("params");
  m.params.expect_map();
  if (auto pub = doc.optional_child("published")) {
    pub->expect_map();
    for (const auto& k : pub->keys()) m.published[k] = pub->get_number(k, 0, 1e15);
  }
  m.source_file = doc.file();
  m.workload_kind = workload_kind_of(m);
  return m;
}

std::string workload_kind_of(const ModelDesc& model) {
  // Transformers split by kind: an encoder fine-tuned in BERT recipes and a decoder-only LLM pretrained
  // under Megatron or FSDP come from different stacks (recommender families use `kind` for their own
  // variants, which stay one workload kind).
  if (model.family != "transformer") return model.family;
  return model.family + "/" + model.params.get_string("kind", "");
}

std::vector<std::string> zoo_ids(const std::string& models_dir) {
  std::vector<std::string> ids;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(models_dir, ec))
    if (e.path().extension() == ".yaml") ids.push_back(e.path().stem().string());
  std::sort(ids.begin(), ids.end());
  return ids;
}

bool model_is_path(const std::string& id_or_path) {
  auto ends_with = [&](const char* suffix) {
    const std::string sfx(suffix);
    return id_or_path.size() > sfx.size() && id_or_path.compare(id_or_path.size() - sfx.size(), sfx.size(), sfx) == 0;
  };
  return id_or_path.find('/') != std::string::npos || ends_with(".yaml") || ends_with(".json");
}

ModelDesc load_model(const std::string& id_or_path, const std::string& models_dir) {
  std::error_code ec;
  if (model_is_path(id_or_path)) {
    if (!fs::is_regular_file(id_or_path, ec)) {
      // Name where it looked: a relative path in a job file was resolved against the job's folder.
      std::string looked = fs::absolute(id_or_path, ec).lexically_normal().string();
      if (ec || looked.empty()) looked = id_or_path;
      throw ModelNotFound(id_or_path + ": model file not found" +
                          (looked == id_or_path ? std::string() : " (looked for " + looked + ")"));
    }
    if (fs::path(id_or_path).extension() == ".json") return import_hf_config(id_or_path);
    auto m = parse_model_yaml(YamlReader::load_file(id_or_path));
    return m;
  }
  const auto path = (fs::path(models_dir) / (id_or_path + ".yaml")).string();
  if (!fs::is_regular_file(path, ec)) {
    const std::string near = did_you_mean(id_or_path, zoo_ids(models_dir));
    if (near.empty())
      throw ModelNotFound("unknown model '" + id_or_path + "'" + add_catalog_entry_hint(id_or_path, models_dir, "models") +
                          "; a model YAML path or a config.json path also works");
    throw ModelNotFound("unknown model '" + id_or_path + "'" + near + "; expected a zoo id from " + models_dir +
                        ", a model YAML path or a config.json path");
  }
  auto m = parse_model_yaml(YamlReader::load_file(path));
  if (m.id != id_or_path) throw InputError(path, 0, 0, "id", "id '" + m.id + "' must equal the file name");
  return m;
}

Workload build_workload(const ModelDesc& model, const BuildContext& ctx) {
  Workload w;
  w.model_id = model.id;
  w.sample_unit = model.sample_unit;
  w.samples = ctx.batch;
  w.seq_len = ctx.seq_len;
  GraphBuilder g(w);
  generate_family(model.family, model.params, ctx, g);
  if (w.ops.empty()) model.params.fail("model '" + model.id + "' produced no ops");
  // Each size is range-checked where it is read, but their products can still be astronomical (a
  // 10^12 x 10^12 layer, batch_size 10^8 x seq_len 10^7). Refuse what no GPU could ever run instead
  // of printing a prediction of 10^60 seconds.
  auto absurd = [&](const char* what, double value, double limit) {
    if (!(value <= limit)) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "model '%s' at batch %g: %.3g %s exceeds %.0e; check its sizes, batch_size and seq_len",
                    model.id.c_str(), ctx.batch, value, what, limit);
      model.params.fail(buf);
    }
  };
  absurd("parameters", w.params(), 1e15);
  absurd("FLOPs per micro-batch", w.fwd_flops() + w.bwd_flops(), 1e24);
  absurd("stashed activation elements", w.saved_elements(), 1e18);
  if (model.sequence) w.tokens = ctx.batch * ctx.seq_len;
  return w;
}

}  // namespace ptp::predict
