// A field's value read as its row types it: from the job file's YAML, or from text written elsewhere
// (a launch file's flag) with the same checks and messages (job_fields.hpp).
#include <algorithm>
#include <sstream>

#include "ptp/predict/job_fields.hpp"
#include "ptp/vocab/enum_names.hpp"
#include "ptp/vocab/suggest.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {

FieldValue read_list(const JobField& f, const YamlReader& node) {
  if (!node.is_sequence() || (f.non_empty && node.size() == 0))
    node.fail(std::string("expected a ") + (f.non_empty ? "non-empty " : "") + "list of " + joined_names(f.choices));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const auto e = node.element(i);
    const std::string v = e.as_string();
    if (std::find(f.choices.begin(), f.choices.end(), v) == f.choices.end())
      e.fail("unknown " + f.noun + " '" + v + "'" + did_you_mean(v, f.choices) + "; expected " +
             joined_names(f.choices));
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

}  // namespace

FieldValue read_field_value(const JobField& f, const YamlReader& node) {
  switch (f.type) {
    case FieldType::text:
      return node.as_string();
    case FieldType::integer:
      return static_cast<long long>(node.as_int(static_cast<std::int64_t>(f.min), static_cast<std::int64_t>(f.max)));
    case FieldType::number:
      return node.as_number(f.min, f.max);
    case FieldType::flag:
      return node.as_bool();
    case FieldType::choice: {
      const std::string v = node.as_string();
      if (std::find(f.choices.begin(), f.choices.end(), v) == f.choices.end())
        node.fail("unknown " + f.noun + " '" + v + "'" + did_you_mean(v, f.choices) + "; expected " +
                  joined_names(f.choices));
      return v;
    }
    case FieldType::choice_list:
      return read_list(f, node);
    case FieldType::section:
      break;
  }
  node.fail("is a mapping");
}

FieldValue checked_field_value(const JobField& f, const std::string& text, const std::string& where,
                               const std::string& name) {
  // A node built here has no mark, so the reader's messages carry `where` as their whole location.
  YAML::Node node(text);
  if (f.type == FieldType::choice_list) {
    node = YAML::Node(YAML::NodeType::Sequence);
    std::stringstream items(text);
    for (std::string item; std::getline(items, item, ',');) node.push_back(item);
  }
  return read_field_value(f, YamlReader(node, where, name));
}

}  // namespace ptp::predict
