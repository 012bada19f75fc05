#pragma once
// A row of the published peak-memory table (datasets/memory.csv) as the memory evaluation reads it:
// the job spec it states, or why it states none.
#include <string>
#include <vector>

#include "ptp/predict/prediction.hpp"
#include "ptp/vocab/csv.hpp"

#include "ptp/eval/vocabulary.hpp"

namespace ptp::eval::detail {

struct Row {
  std::string id, origin, kind, finetune, model, gpu, precision, flags, stand_in;
  double measured_gib = 0;
  bool clean = false;
  std::string job_yaml, skip;
  MemoryEstimate m;
  // The predicted layer this row's memory kind measures.
  double predicted_bytes() const {
    if (kind == "allocated" || kind == "active") return m.allocated_bytes;
    if (kind == "reserved" || kind == "reserved_minus_init") return m.reserved_bytes;
    return m.per_gpu_bytes;
  }
};

// The job spec of one row, or a skip reason. Order of the checks = order of the reasons reported.
// `stand_in` names the GPU for rows whose GPU is not named; ignore_outcome evaluates a row whose
// outcome is not a measured peak (an OOM) as though it were one.
void make_job(const CsvTable& t, const CsvRow& r, const std::vector<std::string>& zoo, const std::string& stand_in,
              Row& e, bool ignore_outcome = false);

}  // namespace ptp::eval::detail
