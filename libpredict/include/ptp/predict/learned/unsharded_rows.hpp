#pragma once
// The aggregator row of a sharded job is its unsharded twin's (aggregator_features: the job with
// sharding none, everything else as resolved; sharding moves gradients and parameters, never the
// math). A search meets each configuration under every sharding it walks, so a session keeps the
// rows of its last few twins, keyed by every job-field value, the shared workload and what was
// resolved from the sharded job (its training state: an implied FSDP convention follows the
// sharding). With one bundle per session (LearnedMemo::keep_unsharded_rows), the same twin gives
// the same row.
#include <cstddef>
#include <memory>
#include <vector>

#include "ptp/predict/job_fields.hpp"
#include "ptp/vocab/memory_convention.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

struct ResolvedJob;
struct SharedWorkload;

class UnshardedRows {
 public:
  // The row kept for this unsharded job, or null (a job without a shared workload is never kept).
  const std::vector<float>* find(const ResolvedJob& unsharded, bool blind);
  void keep(const ResolvedJob& unsharded, bool blind, const std::vector<float>& row);
  std::size_t hits = 0, misses = 0;

 private:
  struct Entry {
    std::shared_ptr<const SharedWorkload> workload;  // kept alive: its address stays its own
    bool blind;
    TrainingStateBytes state;
    double quantized_base_bytes;
    std::vector<FieldValue> fields;
    std::vector<float> row;
  };
  static std::vector<FieldValue> fields_of(const ResolvedJob& job);
  static constexpr std::size_t kKeep = 8;
  std::vector<Entry> recent_;  // most recent last
  std::vector<FieldValue> probe_;
};

}  // namespace ptp::predict
