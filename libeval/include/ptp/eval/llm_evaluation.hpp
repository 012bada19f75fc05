#pragma once
// The analytical model against the published LLM throughput data (datasets/runs.csv, source = llm):
// coverage, step-time MAPE per precision / GPU family / parallelism style / framework / model, and
// the error of the predicted FP8-over-BF16 (and FP4-over-BF16, FP4-over-FP8) speed-ups on rows that
// differ only in precision. docs/llm-evaluation.md is its report, with the rules rows are read by.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "ptp/eval/vocabulary.hpp"

namespace ptp::eval {

struct LlmEvaluationOptions {
  std::string runs_csv;
  std::string config_dir;
  std::string rows_csv;  // write each predicted row here (empty: none)
  std::string jobs_dir;  // write each predicted row's job spec here (empty: none)
  // Documented constants set to other values, for a sensitivity check (name, value): gemm_tc_emax,
  // fused_attention_emax, memory_emax, tc_power_exponent, tp_exposed, p2p_exposed, dp_overlap,
  // a2a_exposed. An unknown name is an InputError.
  std::vector<std::pair<std::string, double>> constants;
};

// Writes the report to `out` and each row that validation rejects to `log`.
void report_llm_evaluation(const LlmEvaluationOptions& o, std::FILE* out, std::FILE* log);

}  // namespace ptp::eval
