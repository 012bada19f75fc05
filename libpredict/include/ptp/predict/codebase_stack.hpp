#pragma once
// What a codebase's published recipes do with the stack descriptors a job leaves unset (overlaps,
// CUDA graphs, compile, fused optimizer). A descriptor the job states, or its launch file sets,
// always wins; a codebase the table does not name keeps the predictor's own assumption. A new
// codebase is rows in libpredict/src/stack/codebase_stack.cpp.
#include <string>
#include <vector>

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

struct JobSpec;

// The layout a recipe's choice depends on (Megatron-Bridge gates TP overlap on sequence
// parallelism and overlaps pipeline sends only under the interleaved schedule).
enum class StackCondition { always, tensor_parallel_with_sp, tensor_parallel, interleaved_pipeline, plain_pipeline };

struct CodebaseStackDefault {
  const char* codebase;  // the job's `codebase:` value
  const char* field;     // the job-spec key it fills: overlap.tp_comm, cuda_graphs, ...
  StackCondition when;
  bool value;
  const char* source;  // where the recipe says so
};

const std::vector<CodebaseStackDefault>& codebase_stack_table();

// Fills the descriptors `job` leaves unset from its codebase's rows whose condition holds; returns
// the rows it used, in table order.
std::vector<const CodebaseStackDefault*> apply_codebase_stack(JobSpec& job);

}  // namespace ptp::predict
