#include "search_fields.hpp"

#include <algorithm>
#include <stdexcept>

#include "ptp/predict/job_fields.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

const std::vector<SearchField>& search_fields() {
  static const std::vector<SearchField> fields = [] {
    std::vector<const JobField*> rows;
    for (const auto& f : job_fields())
      if (f.searchable()) rows.push_back(&f);
    std::stable_sort(rows.begin(), rows.end(),
                     [](const JobField* a, const JobField* b) { return a->search_order < b->search_order; });
    std::vector<SearchField> out;
    for (const JobField* f : rows) out.push_back({f->key, f->search_column, f, f->search_tier});
    return out;
  }();
  return fields;
}

std::string SearchField::get(const JobSpec& job) const { return field_text(field->get(job)); }

void SearchField::set(JobSpec& job, const std::string& canonical) const {
  field->set(job, field_value_from_text(*field, canonical));
}

const SearchField& search_field(const std::string& key) {
  for (const auto& f : search_fields())
    if (f.key == key) return f;
  throw std::logic_error("search_field: unknown key " + key);
}

}  // namespace ptp::predict
