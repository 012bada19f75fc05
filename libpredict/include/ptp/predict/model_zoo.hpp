#pragma once
// Model descriptions: configs/models/<id>.yaml (a family generator + its parameters), a path to such a
// YAML file, or a Hugging Face config.json. A new model is one YAML file; a new family is one source
// file under src/models/ plus one line in family_registry.cpp.
#include <map>
#include <string>
#include <vector>

#include "ptp/predict/workload.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/yaml_reader.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

struct BuildContext {
  double batch = 0;      // micro-batch per GPU in samples
  int seq_len = 0;       // 0 when the job gives none
  int depth = 0;         // nesting depth of composite models
  bool untie_embeddings = false;  // the job's memory.untie_embeddings: an LM head apart from a tied table
  int mtp_depth = 0;  // the job's mtp_depth: 0, one depth per MTP module
};

struct ModelDesc {
  std::string id, family, description, sample_unit = "samples", source_file;
  bool sequence = false;           // needs seq_len
  std::map<std::string, double> published;  // published reference figures (params_m, forward_gmacs, ...)
  YamlReader params{YAML::Node(), "", ""};
  // What an import had to assume (a config.json of an unknown model_type); every prediction of a
  // job on this model carries them in Prediction::warnings.
  std::vector<std::string> warnings;
  // workload_kind_of(*this), set when the model is loaded: every learned prediction reads it, and a
  // search makes hundreds of thousands of them.
  std::string workload_kind;
};
// What kind of workload a model is: its family, and for a transformer its kind
// ("transformer/decoder-only", "transformer/encoder", "resnet", ...). The learned bundle scales its
// band per kind (LearnedBundle::band_scale_by_kind).
std::string workload_kind_of(const ModelDesc& model);

using FamilyGenerator = void (*)(const YamlReader& params, const BuildContext& ctx, GraphBuilder& g);
struct FamilyEntry {
  const char* name;
  FamilyGenerator generate;
  const char* summary;
};
const std::vector<FamilyEntry>& model_families();
FamilyGenerator find_family(const std::string& name, const YamlReader& where);

// Accepts a zoo id, a path to a model YAML, or a path to a Hugging Face config.json.
// A name with a slash or a .yaml/.json suffix is a path; anything else is a zoo id.
bool model_is_path(const std::string& id_or_path);
// Thrown by load_model when the id or file does not exist (as opposed to a model file that is
// wrong): the job's model field is then what the user must fix.
class ModelNotFound : public InputError {
 public:
  using InputError::InputError;
};
ModelDesc load_model(const std::string& id_or_path, const std::string& models_dir);
ModelDesc parse_model_yaml(const YamlReader& doc);
ModelDesc import_hf_config(const std::string& path);
ModelDesc import_hf_config_text(const std::string& text, const std::string& path);  // `path` names it in errors
std::vector<std::string> zoo_ids(const std::string& models_dir);

Workload build_workload(const ModelDesc& model, const BuildContext& ctx);
// Runs a family generator on `params` (used by composite models).
void generate_family(const std::string& family, const YamlReader& params, const BuildContext& ctx, GraphBuilder& g);

}  // namespace ptp::predict
