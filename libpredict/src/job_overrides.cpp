// --set / --unset: a dotted key and a YAML value applied to the job spec's tree before it is parsed.
#include <algorithm>
#include <filesystem>
#include <sstream>

#include "ptp/predict/job_fields.hpp"
#include "ptp/predict/job_spec.hpp"
#include "ptp/predict/model_zoo.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/suggest.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {
// A value given on the command line has no place in the file: rebuild it without line:column
// (YAML::Load marks it 1:1, which pointed errors about it at the file's first line). The node budget
// stops anchor/alias bombs in a --set value, which this copy would otherwise expand.
YAML::Node unmarked(const YAML::Node& n, int& budget, const std::string& key) {
  if (--budget < 0) throw InputError("--set '" + key + "': value has too many elements");
  switch (n.Type()) {
    case YAML::NodeType::Scalar:
      return YAML::Node(n.Scalar());
    case YAML::NodeType::Sequence: {
      YAML::Node out(YAML::NodeType::Sequence);
      for (const auto& e : n) out.push_back(unmarked(e, budget, key));
      return out;
    }
    case YAML::NodeType::Map: {
      YAML::Node out(YAML::NodeType::Map);
      for (const auto& kv : n) out[unmarked(kv.first, budget, key)] = unmarked(kv.second, budget, key);
      return out;
    }
    default:
      return YAML::Node(YAML::NodeType::Null);
  }
}
}  // namespace

Override parse_unset(const std::string& key) {
  if (key.empty() || key.find('=') != std::string::npos)
    throw InputError("--unset '" + key + "': expected a dotted key (e.g. finetune.rank)");
  return {kUnsetMark + key, ""};
}

std::vector<Override> parse_overrides(const std::vector<std::string>& unsets, const std::vector<std::string>& sets) {
  std::vector<Override> overrides;
  for (const auto& key : unsets) overrides.push_back(parse_unset(key));
  for (const auto& text : sets) overrides.push_back(parse_override(text));
  return overrides;
}

Override parse_override(const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("--set/--sweep '" + text + "': expected key=value (e.g. cluster.num_gpus=16)");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

namespace {
// The node a --set value writes: its YAML reading, a path on the command line made absolute.
YAML::Node override_value(const Override& ov, const std::string& top, std::size_t depth) {
  YAML::Node value;
  try {
    int budget = 10000;
    value = unmarked(YAML::Load(ov.second), budget, ov.first);
  } catch (const YAML::Exception&) {
    value = YAML::Node(ov.second);
  }
  // A path typed on the command line is relative to the working directory, not to the job file.
  const bool path = (depth == 1 && top == "model" && value.IsScalar() && model_is_path(value.Scalar())) ||
                    (depth == 2 && top == "launch" && value.IsScalar() && !value.Scalar().empty());
  if (path) {
    std::error_code ec;
    const auto absolute = std::filesystem::absolute(value.Scalar(), ec);
    if (!ec) value = YAML::Node(absolute.lexically_normal().string());
  }
  return value;
}

void apply_value(YAML::Node& root, const Override& ov, const std::vector<std::string>& parts, const YAML::Node& value) {
  // Walk with a fresh node per level; yaml-cpp nodes alias, so reassigning the walker would overwrite.
  std::vector<YAML::Node> chain{root};
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node next = chain.back()[parts[i]];
    if (!next.IsDefined() || next.IsNull()) {
      chain.back()[parts[i]] = YAML::Node(YAML::NodeType::Map);
      next = chain.back()[parts[i]];
    }
    if (!next.IsMap()) throw InputError("--set '" + ov.first + "': '" + parts[i] + "' is not a mapping");
    chain.push_back(next);
  }
  chain.back()[parts.back()] = value;
}
}  // namespace

YAML::Node OverrideValueCache::copy(const YAML::Node& value) {
  // A copy without marks (YAML::Clone would mark it 0:0, and an error in it would then name the
  // file instead of the flag).
  int budget = 10000;
  return unmarked(value, budget, "");
}

void apply_override(YAML::Node& root, const Override& override_or_unset, OverrideValueCache* values) {
  const bool unset = is_unset(override_or_unset);
  const Override ov{unset ? override_or_unset.first.substr(kUnsetMark.size()) : override_or_unset.first,
                    override_or_unset.second};
  const std::string flag = unset ? "--unset '" : "--set '";
  std::vector<std::string> parts;
  std::stringstream ss(ov.first);
  for (std::string p; std::getline(ss, p, '.');) {
    if (p.empty()) throw InputError(flag + ov.first + "': empty path component");
    parts.push_back(p);
  }
  if (parts.empty()) throw InputError(flag + ov.first + "': empty key");
  if (parts.size() > 4) throw InputError(flag + ov.first + "': path too deep");
  const auto& top = parts.front();
  const auto& top_keys = section_keys("");
  if (std::find(top_keys.begin(), top_keys.end(), top) == top_keys.end())
    throw InputError(flag + ov.first + "': unknown field '" + top + "'" + did_you_mean(top, top_keys));
  if (unset) {
    // Removing what is not there is refused: a misspelt key must not pass as done.
    std::vector<YAML::Node> chain{root};
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      YAML::Node next = chain.back()[parts[i]];
      if (!next.IsDefined() || !next.IsMap())
        throw InputError(flag + ov.first + "': the job has no mapping '" + parts[i] + "'");
      chain.push_back(next);
    }
    YAML::Node parent = chain.back();
    const auto keys = YamlReader(parent, "", "").keys();
    if (std::find(keys.begin(), keys.end(), parts.back()) == keys.end())
      throw InputError(flag + ov.first + "': the job has no field '" + ov.first + "'" + did_you_mean(parts.back(), keys));
    parent.remove(parts.back());
    return;
  }
  const auto make = [&] { return override_value(ov, top, parts.size()); };
  apply_value(root, ov, parts, values ? values->value(ov, make) : make());
}

void apply_override(YAML::Node& root, const Override& ov) { apply_override(root, ov, nullptr); }
void apply_override(YAML::Node& root, const Override& ov, OverrideValueCache& values) {
  apply_override(root, ov, &values);
}

bool is_unset(const Override& ov) { return ov.first.rfind(kUnsetMark, 0) == 0; }

bool flag_covers(const std::string& key, const std::string& field) {
  return key == field || field.rfind(key + ".", 0) == 0 || key.rfind(field + ".", 0) == 0;
}

std::string flag_text(const Override& ov, bool sweep_point) {
  if (is_unset(ov)) return "--unset '" + ov.first.substr(kUnsetMark.size()) + "'";
  return std::string(sweep_point ? "--sweep '" : "--set '") + ov.first + "=" + ov.second + "'";
}

void note_flag_fields(JobSpec& job, const std::vector<Override>& flags, const std::vector<Override>& sweep_point) {
  job.flag_fields.clear();
  for (const auto& ov : flags)
    if (!is_unset(ov)) job.flag_fields.emplace_back(ov.first, flag_text(ov));
  for (const auto& ov : sweep_point) job.flag_fields.emplace_back(ov.first, flag_text(ov, true));
}

InputError blame_flags(const InputError& e, const std::vector<Override>& flags, const std::vector<Override>& sweep_point) {
  if (e.line() > 0 || e.field().empty()) return e;
  const Override* culprit = nullptr;
  bool in_sweep = false;
  for (const auto& ov : flags)
    if (!is_unset(ov) && flag_covers(ov.first, e.field())) culprit = &ov;
  for (const auto& ov : sweep_point)
    if (flag_covers(ov.first, e.field())) culprit = &ov, in_sweep = true;
  if (!culprit) return e;
  return InputError(flag_text(*culprit, in_sweep) + ": " + e.field() + ": " + e.problem());
}

}  // namespace ptp::predict
