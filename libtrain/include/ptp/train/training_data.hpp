#pragma once
// Loads the three dataset tables (schema in ptp/vocab/dataset_schema.hpp) into typed records.
// Rows that cannot be used are excluded by the rules in training_data.cpp, each with a reason that
// the training report counts; measured numbers are never edited.
#include <map>
#include <string>
#include <vector>

#include "ptp/predict/job_spec.hpp"
#include "ptp/vocab/op_class.hpp"

#include "ptp/train/vocabulary.hpp"

namespace ptp::train {

struct RunRecord {
  int line = 0;
  std::string run_id, source, quality, task;
  // The software stack the run measured: source, table or file, framework, container or benchmark
  // version, model and task (stack_key). Calibration is evaluated within a stack.
  std::string stack;
  // The publishing codebase and its version family (runs.csv `codebase`; `source` in tables
  // without the column). Held out whole by leave-one-codebase-out; its speed gets an offset of its own.
  std::string codebase;
  JobSpec job;           // the job-spec view of the row
  double step_time_s = 0;  // measured seconds per optimizer step
};

struct OpRecord {
  int line = 0;
  std::string source;
  OpClass op_class = OpClass::gemm;
  std::string dtype, gpu;
  double m = 0, n = 0, k = 0, batch = 1, flops = 0, bytes = 0, time_s = 0;
};

struct CollectiveRecord {
  int line = 0;
  std::string source, collective, gpu, fabric_inter, dtype;
  double size_bytes = 0, time_s = 0;
  int ranks = 0, nodes = 1, ranks_per_node = 1;
};

template <typename Record>
struct Table {
  std::string path, sha256;
  std::vector<Record> rows;
  std::map<std::string, int> excluded;  // reason -> rows
  int total_rows = 0;
};

Table<RunRecord> load_runs(const std::string& path);
Table<OpRecord> load_ops(const std::string& path);
Table<CollectiveRecord> load_collectives(const std::string& path);

Framework framework_id(const std::string& published);
std::string stack_key(const std::string& source, const std::string& source_ref, const std::string& framework,
                      const std::string& notes, const std::string& model, const std::string& task);  // "PyTorch (DLE fork)" -> pytorch

}  // namespace ptp::train
