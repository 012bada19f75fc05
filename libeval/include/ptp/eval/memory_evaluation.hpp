#pragma once
// The memory estimate evaluated on the published peak-memory table (datasets/memory.csv): markdown
// tables per origin, memory kind, method, convention, precision and model, and a summary for the
// bundle's metrics (memory_evaluation.cpp says what is compared with what).
#include <nlohmann/json.hpp>
#include <string>

#include "ptp/predict/resolved_job.hpp"

#include "ptp/eval/vocabulary.hpp"

namespace ptp::eval {

struct MemoryEvaluationOptions {
  std::string memory_csv;
  std::string stand_in_gpu;  // predict rows whose GPU is not named on this one (separate table); empty: skip them
  std::string rows_csv;      // write the per-row breakdown here (empty: none)
  std::string jobs_dir;      // write each evaluated row's job spec here (empty: none)
};
struct MemoryEvaluation {
  std::string markdown;
  nlohmann::json summary;  // rows, mape, median_ape, signed, within_10; by_kind: the same per memory kind
};
MemoryEvaluation evaluate_memory(const MemoryEvaluationOptions& o, const Catalogs& catalogs);

}  // namespace ptp::eval
