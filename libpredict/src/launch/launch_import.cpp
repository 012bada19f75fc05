// A launch file's values merged under the job's own fields (launch_import.hpp). Precedence is the
// job's: a field it gives wins (a warning when the launch file says otherwise), and of fields that
// exclude each other (batch_size / batch_tokens, the run kinds, global_batch_size / grad_accum) one
// the job gives drops the launch file's others. Every imported value is checked as the same text in
// the job file would be, and its errors name the launch file's line.
#include "ptp/predict/launch_import.hpp"

#include <algorithm>
#include <filesystem>

#include "megatron_flags.hpp"
#include "ptp/predict/job_fields.hpp"
#include "ptp/predict/resolved_job.hpp"
#include "torchtitan_toml.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {

const std::vector<std::vector<std::string>>& exclusive_groups() {
  static const std::vector<std::vector<std::string>> groups = {
      {"batch_size", "batch_tokens"},
      {"run.steps", "run.epochs", "run.dataset_size", "run.tokens"},
      {"global_batch_size", "grad_accum"},
  };
  return groups;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// The job file (with its --set edits) gives the field; keys are at most section.name.
bool gives(const YamlReader& doc, const std::string& key) {
  const auto dot = key.find('.');
  if (dot == std::string::npos) return doc.has(key);
  const auto section = doc.optional_child(key.substr(0, dot));
  return section && section->is_map() && section->has(key.substr(dot + 1));
}

// The field of `key`'s exclusive group that the job gives, or "".
std::string rival_given(const YamlReader& doc, const std::string& key) {
  for (const auto& group : exclusive_groups()) {
    if (!contains(group, key)) continue;
    for (const auto& other : group)
      if (other != key && gives(doc, other)) return other;
  }
  return "";
}


}  // namespace

std::optional<LaunchRead> read_job_launch(const YamlReader& doc, JobSpec& j) {
  const auto l = doc.optional_child("launch");
  if (!l) return std::nullopt;
  if (!l->is_map()) l->fail("expected a mapping {megatron_args, torchtitan_toml}");
  l->check_keys(section_keys("launch"));
  for (const char* key : {"launch.megatron_args", "launch.torchtitan_toml"}) {
    const JobField& f = job_field(key);
    if (const auto c = l->optional_child(f.name())) f.set(j, read_field_value(f, *c));
  }
  const bool megatron = !j.launch.megatron_args.empty(), titan = !j.launch.torchtitan_toml.empty();
  if (megatron == titan)
    l->fail(megatron ? "give one of megatron_args and torchtitan_toml, not both"
                     : "expected megatron_args or torchtitan_toml");
  const std::string key = megatron ? "launch.megatron_args" : "launch.torchtitan_toml";
  const std::string path = resolve_job_path(megatron ? j.launch.megatron_args : j.launch.torchtitan_toml, doc.file());
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) fail_field(j, key, "launch file not found: " + absolute_path(path));
  try {
    return key == "launch.megatron_args" ? read_megatron_args(path) : read_torchtitan_toml(path);
  } catch (const InputError& e) {
    throw InputError(field_prefix(j, key) + e.what());  // the job, then the launch file's line
  }
}

std::vector<std::string> launch_given_keys(const LaunchRead& launch) {
  std::vector<std::string> keys{"model"};  // merge_launch says why when the file defines none
  for (const auto& v : launch.values) keys.push_back(v.key);
  return keys;
}

bool launch_gave(const JobSpec& j, const std::string& key) { return j.imported && contains(j.imported->fields, key); }

std::vector<std::string> megatron_flags_read() {
  std::vector<std::string> out;
  for (const auto& row : launch::megatron_flag_table()) out.emplace_back(row.flag);
  return out;
}

std::vector<std::string> torchtitan_keys_read() {
  std::vector<std::string> out;
  for (const auto& row : launch::titan_key_table()) out.emplace_back(row.path);
  return out;
}

std::vector<std::string> merge_launch(const YamlReader& doc, const LaunchRead& launch, JobSpec& j) {
  auto record = std::make_shared<LaunchImport>();
  record->file = launch.file;
  record->dims = launch.dims;
  record->warnings = launch.warnings;
  std::vector<std::string> set_keys;
  auto note = [&](const std::string& key) {
    if (!contains(record->fields, key)) record->fields.push_back(key);
  };
  const std::string launch_key = j.launch.megatron_args.empty() ? "launch.torchtitan_toml" : "launch.megatron_args";
  for (const auto& v : launch.values) {
    const JobField& f = job_field(v.key);
    FieldValue value;
    try {
      value = checked_field_value(f, v.text, v.where, v.source + " (" + v.key + ")");
    } catch (const InputError& e) {
      throw InputError(field_prefix(j, launch_key) + e.what());  // names the job and the launch file's line
    }
    // A field given with --set has no place in the file: it overrides quietly, as over the file's own.
    if (gives(doc, v.key)) {
      note(v.key);
      const std::string ours = field_text(f.get(j)), theirs = field_text(value);
      if (ours != theirs && j.positions.count(v.key))
        record->warnings.push_back(field_prefix(j, v.key) + "the job's " + ours + " wins over " + theirs + " from " +
                                   v.source + " (" + v.where + ")");
      continue;
    }
    if (const std::string rival = rival_given(doc, v.key); !rival.empty()) {
      if (j.positions.count(rival))
        record->warnings.push_back(field_prefix(j, rival) + "the job's " + rival + " wins; " + v.source + " (" +
                                   v.where + ") is not used");
      continue;
    }
    f.set(j, value);
    note(v.key);
    set_keys.push_back(v.key);
  }
  if (!gives(doc, "model") && !contains(set_keys, "model")) {
    if (launch.model_yaml.empty())
      throw InputError(
          doc.file(), doc.line(), doc.column(), "model",
          "missing required field, and " + launch.file + " does not define the model (" + launch.model_missing + ")");
    j.model = YAML::Load(launch.model_yaml)["id"].Scalar();
    record->model_yaml = launch.model_yaml;
  }
  j.imported = std::move(record);
  return set_keys;
}

bool launch_defines_model(const JobSpec& job) { return job.imported && !job.imported->model_yaml.empty(); }

std::vector<std::string> job_warnings(const JobSpec& job, const Catalogs& catalogs) {
  if (!job.imported) return {};
  std::vector<std::string> out = job.imported->warnings;
  if (launch_defines_model(job)) {
    try {
      const ModelDesc& m = catalogs.model_from_text(job.imported->model_yaml);
      if (m.id != job.model)
        out.push_back(job.imported->file + ": its model sizes are the zoo's '" + m.id + "' in full, which is predicted (" +
                      m.id + " in configs/models/)");
    } catch (const InputError&) {
      // The prediction reports a model that does not build, with the job's line.
    }
    return out;
  }
  if (job.imported->dims.empty()) return out;
  try {
    const ModelDesc& m = catalogs.model(job.model);
    if (m.family != "transformer") {
      out.push_back(job.imported->file + ": the model sizes it gives are not checked: '" + m.id + "' is a " + m.family +
                    " model");
      return out;
    }
    const YamlReader& p = m.params;
    const double heads = p.get_number("heads", 0, 1e9, 0), hidden = p.get_number("hidden", 0, 1e9, 0);
    auto model_value = [&](const std::string& param) -> double {
      if (param == "kv_heads") return p.get_number(param, 0, 1e9, heads);
      if (param == "head_dim") return p.get_number(param, 0, 1e9, heads > 0 ? hidden / heads : 0);
      if (param == "ffn") return p.get_number(param, 0, 1e9, 4 * hidden);
      if (param == "expert_ffn") return p.get_number(param, 0, 1e9, p.get_number("ffn", 0, 1e9, 4 * hidden));
      return p.get_number(param, 0, 1e12, 0);
    };
    for (const auto& d : job.imported->dims) {
      // An encoder-decoder counts its layers apart; learned positions alone have a table size.
      if ((d.param == "layers" || d.param == "max_positions") && !p.has(d.param)) continue;
      const double theirs = model_value(d.param);
      if (theirs != d.value)
        out.push_back(d.where + ": " + d.source + " contradicts the job's model '" + m.id + "' (" + d.param + " " +
                      field_text(FieldValue{theirs}) + "); the job's model is predicted");
    }
  } catch (const InputError&) {
    // A model that does not load is the prediction's error to report, with the job's line.
  }
  return out;
}

}  // namespace ptp::predict
