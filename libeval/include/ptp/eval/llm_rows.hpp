#pragma once
// Turning rows of datasets/runs.csv (source = llm, the tidy view of llm_bf16_fp8_throughput.csv)
// into job specs, and the error statistics the evaluation reports. Shared by ptp-eval llm and the
// tests that pin the mapping rules.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ptp/vocab/csv.hpp"

#include "ptp/eval/vocabulary.hpp"

namespace ptp::eval {

// One data row with what the evaluation needs; `job_yaml` is empty when the row cannot be stated
// as a job spec, and `skip_reason` says why.
struct EvalRow {
  int line = 0;
  std::string source_ref, framework, framework_key, model, precision, precision_as_published, gpu, task;
  std::string release;  // "NeMo 26.04 container" etc.: rows of one table are comparable
  int num_gpus = 0, tp = 1, pp = 1, cp = 1, vp = 1, ep = 1;
  std::string sharding, recompute;
  double batch = 0, seq_len = 0, global_batch = 0, measured_step_s = 0;
  std::string job_yaml, skip_reason;
};

// Rules (documented in the evaluation note): zoo id from the row's model column or the "source
// canonical id" in notes; Megatron/NeMo rows without a sharding column use the distributed
// optimizer (zero1, the recipes' default) and sequence parallel when TP > 1; GB200/GB300 racks are
// 4-GPU trays joined by the NVL72 switch when the job fits in one rack, by the default NIC beyond.
EvalRow make_eval_row(const CsvTable& table, const CsvRow& row, const std::vector<std::string>& zoo);

// Absolute percentage error statistics of predicted vs measured step times.
struct ErrorStats {
  int n = 0;
  double mape = 0, median_ape = 0, bias = 0;  // bias: mean of log(pred/measured), as a % factor
};
ErrorStats error_stats(const std::vector<std::pair<double, double>>& pred_measured);

std::string gpu_family(const std::string& gpu_id);
// Rows identical except for precision (same table, release, model, cluster, layout, batch).
std::string pairing_key(const EvalRow& r);
std::string parallelism_style(const EvalRow& r);

}  // namespace ptp::eval
