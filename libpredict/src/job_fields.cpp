// The job-field table's lookups and value texts (job_fields.hpp); the rows are job_field_table.cpp's.
#include "ptp/predict/job_fields.hpp"

#include <cstdio>
#include <stdexcept>

#include "job_field_row.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

std::string JobField::section() const {
  const auto dot = key.rfind('.');
  return dot == std::string::npos ? std::string() : key.substr(0, dot);
}
std::string JobField::name() const {
  const auto dot = key.rfind('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

const std::vector<JobField>& job_fields() {
  static const std::vector<JobField> fields = detail::build_job_field_table();
  return fields;
}

const JobField* find_job_field(std::string_view key) {
  for (const auto& f : job_fields())
    if (f.key == key) return &f;
  return nullptr;
}

const JobField& job_field(std::string_view key) {
  if (const JobField* f = find_job_field(key)) return *f;
  throw std::logic_error("job_field: no field " + std::string(key));
}

const std::vector<std::string>& section_keys(std::string_view section) {
  static const auto by_section = [] {
    std::vector<std::pair<std::string, std::vector<std::string>>> out{{"", {}}};
    for (const auto& f : job_fields()) {
      if (f.type == FieldType::section) out.push_back({f.key, {}});
      for (auto& [s, keys] : out)
        if (s == f.section()) keys.push_back(f.name());
    }
    return out;
  }();
  for (const auto& [s, keys] : by_section)
    if (s == section) return keys;
  throw std::logic_error("section_keys: no section " + std::string(section));
}

std::string field_text(const FieldValue& v) {
  if (std::holds_alternative<bool>(v)) return std::get<bool>(v) ? "true" : "false";
  if (std::holds_alternative<long long>(v)) return std::to_string(std::get<long long>(v));
  if (std::holds_alternative<double>(v)) {
    char text[32];
    std::snprintf(text, sizeof text, "%.10g", std::get<double>(v));
    return text;
  }
  if (std::holds_alternative<std::string>(v)) return std::get<std::string>(v);
  if (std::holds_alternative<std::vector<std::string>>(v)) {
    std::string out;
    for (const auto& e : std::get<std::vector<std::string>>(v)) out += (out.empty() ? "" : ",") + e;
    return "[" + out + "]";
  }
  return "";
}

FieldValue field_value_from_text(const JobField& f, const std::string& text) {
  if (text.empty() && f.type != FieldType::text && f.type != FieldType::choice) return {};
  switch (f.type) {
    case FieldType::integer:
      return std::stoll(text);
    case FieldType::number:
      return std::stod(text);
    case FieldType::flag:
      return text == "true";
    case FieldType::text:
    case FieldType::choice:
      return text;
    case FieldType::choice_list:
    case FieldType::section:
      break;
  }
  throw std::logic_error("field_value_from_text: " + f.key + " has no single-value text");
}

}  // namespace ptp::predict
