#pragma once
// The job-field table: one row per field of the YAML job spec, from which parsing, defaults,
// rejection, --set/--unset, the YAML a job is written back as, the search axes and their columns,
// and the job-spec reference (ptp-predict --describe-job-spec, docs/job-spec.md) all come. Rules that
// tie fields together (batch_size xor batch_tokens, the run kinds, LoRA-only keys) stay code in
// job_spec.cpp. Adding a field: one row in job_field_table.cpp, its member in JobSpec, and its physics.
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ptp/predict/job_spec.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

// A field's value as the spec writes it; monostate: not set (an optional field left out).
using FieldValue = std::variant<std::monostate, bool, long long, double, std::string, std::vector<std::string>>;

enum class FieldType { text, integer, number, flag, choice, choice_list, section };

// When job_spec_to_yaml writes the field: always; when it differs from the default; or whenever its
// section is written (parallelism writes all its degrees once any is set).
enum class Emit { always, when_set, with_section };

struct JobField {
  std::string key;  // dotted: "cluster.num_gpus"
  FieldType type = FieldType::text;
  double min = 0, max = 0;            // integer and number
  std::vector<std::string> choices;   // choice and choice_list
  std::string noun = "value";         // "unknown <noun> 'x'" for a choice or a list element
  bool non_empty = false;             // choice_list: at least one element
  bool required = false;
  std::string default_text;           // the documented default where it is derived ("": the value itself)
  Emit emit = Emit::when_set;
  std::string search_column;          // "" with a search tier: the key is the column
  int search_tier = -1;               // how early a search fixes the axis (search_fields.hpp); -1 not searchable
  int search_order = 0;               // place among the searchable fields (the search table's column order)
  std::string help;
  std::string applies_to;             // "": every job; else which jobs may give the field (for the reference)
  // Why this job may not give the field ("": it may); asked before the field is read.
  std::string (*refuse)(const JobSpec&) = nullptr;
  // True: a written-back job leaves the field out, since another field derives it (grad_accum beside
  // global_batch_size).
  bool (*derived_here)(const JobSpec&) = nullptr;
  std::function<FieldValue(const JobSpec&)> get;            // sections: none
  std::function<void(JobSpec&, const FieldValue&)> set;     // the value is valid for the field

  bool searchable() const { return search_tier >= 0; }
  std::string section() const;  // "" at the top level
  std::string name() const;     // the key within its section
};

// Every field, sections before their children, in the order the spec is read and written.
const std::vector<JobField>& job_fields();
const JobField* find_job_field(std::string_view key);
const JobField& job_field(std::string_view key);  // must exist
// The keys a section's mapping accepts ("" for the top level), in table order.
const std::vector<std::string>& section_keys(std::string_view section);

// A value as --set text ("" for monostate; numbers as %.10g) and back, for the field's type.
std::string field_text(const FieldValue& v);
FieldValue field_value_from_text(const JobField& f, const std::string& text);
// The field's value as its row types it, from its YAML node; every refusal names the node.
FieldValue read_field_value(const JobField& f, const YamlReader& node);
// Text written outside a job file (a launch file's flag; a list as "a,b") read as the same text in
// the job file would be, with the same checks and messages: "`where`: `name`: problem".
FieldValue checked_field_value(const JobField& f, const std::string& text, const std::string& where,
                               const std::string& name);

// The reference of every field as Markdown (docs/job-spec.md is this text).
std::string describe_job_spec_markdown();

}  // namespace ptp::predict
