#pragma once
// The job-spec fields a search may vary, by their --set key, with their column in the search table.
// A value is kept as canonical text (what
// `get` writes after the job spec parsed it), so `set` is an exact inverse and a search edits a
// parsed JobSpec instead of re-parsing YAML for every configuration.
#include <string>
#include <vector>

#include "ptp/predict/job_spec.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

struct JobField;

// A searchable row of the job-field table (job_fields.hpp), in search order.
struct SearchField {
  std::string key;
  std::string column;  // the search table's header for the field ("": the key itself)
  const JobField* field;
  std::string get(const JobSpec& job) const;
  void set(JobSpec& job, const std::string& canonical) const;
  // How early the search walk fixes the axis (0 first): the workload's micro-batch and sequence,
  // then what the step memo's op-time tables depend on (tensor, context, expert parallelism), then
  // the pipeline split its partitions add, then the rest. Consecutive configurations then reuse one
  // partition for every precision, sharding and recomputation, and a few op-time tables for every
  // pipeline split. The rows, counts and their order do not depend on the walk.
  int nesting;
};

// In the order --search lists searchable keys and the table's columns: cluster first, micro-batch last.
const std::vector<SearchField>& search_fields();
const SearchField& search_field(const std::string& key);  // key must be in search_fields()

// Default virtual-pipeline values for the job's pipeline depth: divisors of blocks / pipeline, up to 8.
std::vector<std::string> virtual_pipeline_values(const JobSpec& job, int blocks);

}  // namespace ptp::predict
