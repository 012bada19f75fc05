// The job-spec reference, written from the job-field table: `ptp-predict --describe-job-spec` prints
// it and docs/job-spec.md is its output (a golden test keeps the two equal).
#include <cstdio>

#include "ptp/predict/job_fields.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {

std::string number_text(double v, bool integral) {
  char text[32];
  if (integral) std::snprintf(text, sizeof text, "%.0f", v);
  else std::snprintf(text, sizeof text, "%g", v);
  return text;
}

std::string choices_text(const std::vector<std::string>& choices) {
  std::string out;
  for (const auto& c : choices) out += (out.empty() ? "`" : ", `") + c + "`";
  return out;
}

std::string type_text(const JobField& f) {
  switch (f.type) {
    case FieldType::text:
      return "text";
    case FieldType::integer:
      return "integer " + number_text(f.min, true) + " .. " + number_text(f.max, true);
    case FieldType::number:
      return "number " + number_text(f.min, false) + " .. " + number_text(f.max, false);
    case FieldType::flag:
      return "`true`, `false`";
    case FieldType::choice:
      return "one of " + choices_text(f.choices);
    case FieldType::choice_list:
      return std::string(f.non_empty ? "non-empty " : "") + "list of " + choices_text(f.choices);
    case FieldType::section:
      return "mapping";
  }
  return "";
}

std::string default_text(const JobField& f) {
  if (f.required) return "required";
  if (!f.default_text.empty()) return f.default_text;
  if (f.type == FieldType::section) return "";
  static const JobSpec defaults{};
  const std::string text = field_text(f.get(defaults));
  return text.empty() ? "unset" : "`" + text + "`";
}

std::string search_text(const JobField& f) {
  if (!f.searchable()) return "";
  return f.search_column.empty() ? "yes" : "yes (" + f.search_column + ")";
}

}  // namespace

std::string describe_job_spec_markdown() {
  std::string out =
      "# Job spec reference\n\n"
      "Every field a ptp-predict job file may hold, as `--set`, `--unset` and `--sweep` name it (dotted for a\n"
      "field inside a mapping). This page is the output of `ptp-predict --describe-job-spec`, written from the\n"
      "job-field table (libpredict/src/job_field_table.cpp); a test keeps the two equal. \"search\" marks the fields a\n"
      "`--space` file may list, with the search table's column. Rules between fields (exactly one of\n"
      "`batch_size` and `batch_tokens`; one run kind; `avg_seq_len` within `seq_len`) are checked after the\n"
      "fields are read.\n\n"
      "| field | type | default | search | meaning |\n"
      "|---|---|---|---|---|\n";
  for (const auto& f : job_fields()) {
    std::string meaning = f.help;
    if (!f.applies_to.empty()) meaning += "; " + f.applies_to + " only";
    out += "| `" + f.key + "` | " + type_text(f) + " | " + default_text(f) + " | " + search_text(f) + " | " + meaning +
           " |\n";
  }
  return out;
}

}  // namespace ptp::predict
