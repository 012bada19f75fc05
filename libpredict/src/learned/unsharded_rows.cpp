#include "ptp/predict/learned/unsharded_rows.hpp"

#include <algorithm>

#include "ptp/predict/resolved_job.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

std::vector<FieldValue> UnshardedRows::fields_of(const ResolvedJob& job) {
  std::vector<FieldValue> out;
  out.reserve(job_fields().size());
  for (const auto& f : job_fields())
    if (f.get) out.push_back(f.get(job.job));
  return out;
}

const std::vector<float>* UnshardedRows::find(const ResolvedJob& unsharded, bool blind) {
  if (!unsharded.shared) return nullptr;
  probe_ = fields_of(unsharded);
  const auto it = std::find_if(recent_.begin(), recent_.end(), [&](const Entry& e) {
    return e.workload == unsharded.shared && e.blind == blind && e.state == unsharded.state &&
           e.quantized_base_bytes == unsharded.quantized_base_bytes && e.fields == probe_;
  });
  if (it == recent_.end()) {
    ++misses;
    return nullptr;
  }
  ++hits;
  std::rotate(it, it + 1, recent_.end());
  return &recent_.back().row;
}

void UnshardedRows::keep(const ResolvedJob& unsharded, bool blind, const std::vector<float>& row) {
  if (!unsharded.shared) return;
  if (recent_.size() == kKeep) recent_.erase(recent_.begin());
  recent_.push_back({unsharded.shared, blind, unsharded.state, unsharded.quantized_base_bytes, fields_of(unsharded), row});
}

}  // namespace ptp::predict
