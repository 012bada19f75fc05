#include "ptp/predict/job_spec.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <sstream>

#include "ptp/predict/job_enums.hpp"
#include "ptp/predict/job_fields.hpp"
#include "ptp/predict/launch_import.hpp"
#include "ptp/predict/model_zoo.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/suggest.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {

// Scalars are placed at their value (where a wrong value is), mappings and lists at their key. A
// value from --set has no mark and so no position.
void record_positions(const YAML::Node& map, const std::string& prefix, int depth, JobSpec& j) {
  for (const auto& kv : map) {
    if (!kv.first.IsScalar()) continue;
    const std::string name = prefix.empty() ? kv.first.Scalar() : prefix + "." + kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (v.Mark().line < 0) continue;
    const YAML::Mark at = v.IsMap() || v.IsSequence() ? kv.first.Mark() : v.Mark();
    if (at.line >= 0) j.positions[name] = {at.line + 1, at.column + 1};
    if (v.IsMap() && depth < 2) record_positions(v, name, depth + 1, j);
  }
}

std::string resolve_model_path(const std::string& model, const std::string& job_file) {
  if (!model_is_path(model)) return model;
  const std::string out = resolve_job_path(model, job_file);
  // Normalising "jobs/../x" to "x" would turn the path into a zoo id.
  return model_is_path(out) ? out : "./" + out;
}

std::string joined_keys(const std::vector<std::string>& keys) {
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

// Reads a section's fields in table order (a nested section where its row stands). A required field
// the launch file gives (`given_elsewhere`) may be left out.
void read_section(const YamlReader& node, const std::string& section, JobSpec& j,
                  const std::vector<std::string>& given_elsewhere = {}) {
  node.check_keys(section_keys(section));
  for (const auto& f : job_fields()) {
    if (f.section() != section) continue;
    const auto c = node.optional_child(f.name());
    if (!c) {
      const bool elsewhere = std::find(given_elsewhere.begin(), given_elsewhere.end(), f.key) != given_elsewhere.end();
      if (f.required && !elsewhere) node.child(f.name());  // "missing required field"
      continue;
    }
    if (f.refuse) {
      const std::string why = f.refuse(j);
      if (!why.empty()) c->fail(why);
    }
    if (f.type != FieldType::section) {
      f.set(j, read_field_value(f, *c));
      continue;
    }
    if (!c->is_map()) c->fail("expected a mapping {" + joined_keys(section_keys(f.key)) + "}");
    read_section(*c, f.key, j, given_elsewhere);
  }
}

// The job gives the top-level field, or its launch file set it (`imported`).
bool given(const YamlReader& doc, const std::vector<std::string>& imported, const std::string& key) {
  return doc.has(key) || std::find(imported.begin(), imported.end(), key) != imported.end();
}

// The rules that tie fields together, after every field was read.
void check_batch(const YamlReader& doc, JobSpec& j, const std::vector<std::string>& imported) {
  if (j.model.empty()) doc.child("model").fail("must not be empty");
  if (!launch_defines_model(j)) j.model = resolve_model_path(j.model, doc.file());
  const bool has_batch = given(doc, imported, "batch_size"), has_tokens = given(doc, imported, "batch_tokens");
  if (has_batch == has_tokens)
    doc.fail(has_batch ? "give exactly one of batch_size and batch_tokens, not both"
                       : "missing batch_size (samples per GPU) or batch_tokens (tokens per GPU)");
}

void check_cluster(const YamlReader& doc, JobSpec& j) {
  const auto c = doc.child("cluster");
  if (j.cluster.gpus_per_node > j.cluster.num_gpus) c.child("gpus_per_node").fail("cannot exceed num_gpus");
  if (j.cluster.gpus_per_node > 0 && j.cluster.num_gpus % j.cluster.gpus_per_node != 0)
    c.child("num_gpus").fail("must be a multiple of gpus_per_node (" + std::to_string(j.cluster.gpus_per_node) + ")");
  if (j.cluster.power_limit_w) {  // the GPU's own range is checked when the job is predicted
    j.cluster.power_limit_line = c.child("power_limit_w").line();
    j.cluster.power_limit_column = c.child("power_limit_w").column();
  }
  if (j.usd_per_gpu_hour) j.price_gpu = j.cluster.gpu;
}

void check_run(const YamlReader& doc, const std::vector<std::string>& imported) {
  const auto r = doc.optional_child("run");
  if (!r) return;
  auto has = [&](const char* k) {
    return r->has(k) || std::find(imported.begin(), imported.end(), "run." + std::string(k)) != imported.end();
  };
  const int kinds = (has("steps") ? 1 : 0) + ((has("epochs") || has("dataset_size")) ? 1 : 0) + (has("tokens") ? 1 : 0);
  if (kinds != 1) r->fail("give exactly one of steps | epochs + dataset_size | tokens");
  if (r->has("epochs") || r->has("dataset_size")) {
    r->child("epochs");  // "missing required field" when one is given without the other
    r->child("dataset_size");
  }
}

void check_finetune(const YamlReader& doc, JobSpec& j) {
  const auto f = doc.optional_child("finetune");
  auto& ft = j.finetune;
  if (!f || !ft.lora()) return;
  if (ft.dropout >= 1) f->child("dropout").fail("is a probability below 1 (1 would drop every adapter input)");
  if (!f->has("rank")) f->fail("method: " + std::string(name_of(finetune_method_names(), ft.method)) +
                               " needs rank (the adapters' inner dimension, e.g. 16)");
  if (!f->has("targets")) ft.targets = {LoraTarget::attention, LoraTarget::mlp};
}

void check_sequence_layout(const YamlReader& doc, const JobSpec& j) {
  const auto& s = j.sequences;
  if (doc.has("avg_seq_len")) {
    if (j.seq_len <= 0) doc.child("avg_seq_len").fail("needs seq_len (the padded or packed length)");
    if (s.avg_seq_len > j.seq_len)
      doc.child("avg_seq_len").fail("is " + doc.child("avg_seq_len").as_string() + ", more than seq_len " +
                                    std::to_string(j.seq_len) + " (real tokens cannot exceed the padded length)");
  }
  if (s.attention_mask == AttentionMask::document) {
    if (!s.packing) doc.child("attention_mask").fail("document needs packing: true (documents packed into seq_len)");
    if (s.avg_seq_len <= 0) doc.child("attention_mask").fail("document needs avg_seq_len (the mean document length)");
  }
}

bool differs_from_default(const JobField& f, const JobSpec& j) {
  static const JobSpec defaults{};
  if (launch_gave(j, f.key)) return true;
  if (f.type != FieldType::section) return f.get(j) != f.get(defaults);
  for (const auto& child : job_fields())
    if (child.section() == f.key && differs_from_default(child, j)) return true;
  return false;
}

void emit_value(YAML::Emitter& out, const FieldValue& v) {
  if (std::holds_alternative<bool>(v)) out << std::get<bool>(v);
  else if (std::holds_alternative<long long>(v)) out << std::get<long long>(v);
  else if (std::holds_alternative<double>(v)) out << std::get<double>(v);
  else if (std::holds_alternative<std::string>(v)) out << std::get<std::string>(v);
  else if (std::holds_alternative<std::vector<std::string>>(v)) out << YAML::Flow << std::get<std::vector<std::string>>(v);
  else out << YAML::Null;
}

void emit_section(YAML::Emitter& out, const std::string& section, const JobSpec& j) {
  for (const auto& f : job_fields()) {
    if (f.section() != section) continue;
    const bool written = f.emit == Emit::always || f.emit == Emit::with_section || differs_from_default(f, j);
    if (!written || (f.derived_here && f.derived_here(j))) continue;
    // A model the launch file defines is written as that file (launch:), which the job keeps.
    if (f.key == "model" && launch_defines_model(j)) continue;
    out << YAML::Key << f.name() << YAML::Value;
    if (f.type == FieldType::section) {
      out << YAML::BeginMap;
      emit_section(out, f.key, j);
      out << YAML::EndMap;
    } else {
      emit_value(out, f.get(j));
    }
  }
}

}  // namespace

// (apply_override has already made a path given with --set absolute: it was typed relative to the
// working directory. Marks cannot tell them apart: sweep points parse clones, which have none.)
std::string resolve_job_path(const std::string& path, const std::string& job_file) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const fs::path folder = fs::path(job_file).parent_path();
  if (p.is_absolute() || folder.empty()) return path;
  return (folder / p).lexically_normal().string();
}

std::string absolute_path(const std::string& path) {
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}

std::string field_prefix(const JobSpec& job, const std::string& field) {
  const auto it = job.positions.find(field);
  if (it == job.positions.end() && !field.empty())
    for (auto f = job.flag_fields.rbegin(); f != job.flag_fields.rend(); ++f)  // the last flag wins
      if (flag_covers(f->first, field)) return f->second + ": " + field + ": ";
  const int line = it == job.positions.end() ? 0 : it->second.first;
  const int column = it == job.positions.end() ? 0 : it->second.second;
  return format_location(job.file, line, column) + ": " + (field.empty() ? "" : field + ": ");
}

void fail_field(const JobSpec& job, const std::string& field, const std::string& why) {
  throw InputError(field_prefix(job, field) + why);
}

bool FinetuneSpec::has_target(LoraTarget t) const {
  return std::find(targets.begin(), targets.end(), t) != targets.end();
}
bool FinetuneSpec::targets_attention() const { return has_target(LoraTarget::attention) || has_target(LoraTarget::all); }
bool FinetuneSpec::adapts_attention_projection(bool output_projection) const {
  return targets_attention() || (!output_projection && has_target(LoraTarget::attention_qkv));
}
bool FinetuneSpec::targets_mlp() const { return has_target(LoraTarget::mlp) || has_target(LoraTarget::all); }

JobSpec parse_job_spec(const YamlReader& doc) {
  if (!doc.is_map()) doc.fail("expected a job spec mapping (model, precision, batch_size, cluster, ...)");
  JobSpec j;
  j.file = doc.file();
  doc.check_keys(section_keys(""));
  record_positions(doc.node(), "", 0, j);
  const std::optional<LaunchRead> launch = read_job_launch(doc, j);
  read_section(doc, "", j, launch ? launch_given_keys(*launch) : std::vector<std::string>{});
  std::vector<std::string> imported;
  if (launch) {
    // read_section read the path again as written; the job keeps it resolved.
    if (!j.launch.megatron_args.empty()) j.launch.megatron_args = launch->file;
    else j.launch.torchtitan_toml = launch->file;
    imported = merge_launch(doc, *launch, j);
  }
  check_batch(doc, j, imported);
  check_cluster(doc, j);
  check_run(doc, imported);
  check_finetune(doc, j);
  check_sequence_layout(doc, j);
  return j;
}

std::string file_gpu(const YAML::Node& root) {
  // A missing key reads as an invalid node, which throws on any question but IsDefined.
  if (!root.IsDefined() || !root.IsMap()) return "";
  const YAML::Node cluster = root["cluster"];
  if (!cluster.IsDefined() || !cluster.IsMap()) return "";
  const YAML::Node gpu = cluster["gpu"];
  return gpu.IsDefined() && gpu.IsScalar() ? gpu.Scalar() : std::string();
}

void scope_job_price(JobSpec& job, const std::string& gpu_in_file, const std::vector<Override>& flags,
                     const std::vector<Override>& more_flags) {
  if (!job.usd_per_gpu_hour) {
    job.price_gpu.clear();
    return;
  }
  auto sets_price = [](const Override& ov) { return ov.first == "cost" || ov.first.rfind("cost.", 0) == 0; };
  const bool by_flag = std::any_of(flags.begin(), flags.end(), sets_price) ||
                       std::any_of(more_flags.begin(), more_flags.end(), sets_price);
  job.price_gpu = by_flag ? std::string() : gpu_in_file;
}

JobSpec load_job_spec(const std::string& path, const std::vector<Override>& overrides) {
  return load_job_spec(YamlReader::load_file(path), overrides);
}

JobSpec load_job_spec(const YamlReader& doc, const std::vector<Override>& overrides) {
  const std::string& path = doc.file();
  if (!overrides.empty()) {
    YAML::Node root = doc.node();  // edited in place: YAML::Clone would drop every line:column
    if (!root.IsMap()) doc.fail("expected a job spec mapping");
    const std::string gpu_in_file = file_gpu(root);
    for (const auto& ov : overrides) apply_override(root, ov);
    JobSpec job = [&] {
      try {
        return parse_job_spec(YamlReader(root, path, ""));
      } catch (const InputError& e) {
        throw blame_flags(e, overrides);
      }
    }();
    scope_job_price(job, gpu_in_file, overrides);
    note_flag_fields(job, overrides);
    return job;
  }
  return parse_job_spec(doc);
}

bool graph_compiled(const JobSpec& job) { return job.xla || job.framework == Framework::jax; }

bool channels_first(const JobSpec& job) {
  return job.memory_format ? *job.memory_format == MemoryFormat::nchw : job.framework == Framework::pytorch;
}

std::string merged_job_yaml(const std::string& path, const std::vector<Override>& overrides) {
  JobSpec job = load_job_spec(path, overrides);
  if (model_is_path(job.model) && !launch_defines_model(job)) job.model = absolute_path(job.model);
  for (std::string* launch : {&job.launch.megatron_args, &job.launch.torchtitan_toml})
    if (!launch->empty()) *launch = absolute_path(*launch);
  // What reading the job warned about travels with it, as comments.
  std::string warnings;
  if (job.imported)
    for (const auto& w : job.imported->warnings) warnings += "# warning: " + one_line(w) + "\n";
  return warnings + job_spec_to_yaml(job);
}

std::string job_spec_to_yaml(const JobSpec& j) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  emit_section(out, "", j);
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace ptp::predict
