// ptp_eval_memory: predicts the per-GPU memory of every row of the published peak-memory table
// (datasets/memory.csv) that can be stated as a job spec, with the ANALYTICAL model, and prints the
// error per origin (publishing project) and per memory kind as markdown tables, for all evaluated
// rows and for the rows with a blank quality_flag. Like with like: measured_peak_gib against the
// predicted layer that memory kind measures (predicted_gib below): allocated (max_memory_allocated,
// torchtune's peak active), reserved (max_memory_reserved, also with the init reserve subtracted),
// or what the GPU holds (nvidia-smi, screenshots, and the rows that do not say). Nothing is fitted:
// the reserves are stated constants (AnalyticalConstants), the copies follow each row's memory
// convention (docs/memory-evaluation.md).
//
//   ptp_eval_memory [--memory datasets/memory.csv] [--config-dir configs] [--rows out.csv] [--jobs DIR]
//                   [--stand-in-gpu ID]
//
// --stand-in-gpu predicts the rows whose GPU is not named (or not in the catalog) on that GPU and
// reports them in a separate table (the estimate does not depend on the GPU, except the capacity
// and which precisions it accepts). --jobs writes each evaluated row's job spec, so any row can be
// re-run with ptp-predict.
#include <iostream>
#include <string>

#include "ptp/train/memory_evaluation.hpp"
#include "ptp/vocab/error.hpp"

using namespace ptp;
using ptp::train::evaluate_memory;
using ptp::train::MemoryEvaluationOptions;

int main(int argc, char** argv) {
  std::string memory_csv = std::string(PTP_SOURCE_DIR) + "/datasets/memory.csv";
  std::string config = std::string(PTP_SOURCE_DIR) + "/configs";
  std::string rows_out, jobs_dir, stand_in;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--memory") memory_csv = argv[i + 1];
    else if (a == "--config-dir") config = argv[i + 1];
    else if (a == "--rows") rows_out = argv[i + 1];
    else if (a == "--jobs") jobs_dir = argv[i + 1];
    else if (a == "--stand-in-gpu") stand_in = argv[i + 1];
    else {
      std::cerr << "usage: ptp_eval_memory [--memory CSV] [--config-dir DIR] [--rows OUT.csv] [--jobs DIR] "
                   "[--stand-in-gpu ID]\n";
      return 2;
    }
  }
  if (argc % 2 == 0) {
    std::cerr << "ptp_eval_memory: option without a value\n";
    return 2;
  }
  try {
    MemoryEvaluationOptions o;
    o.memory_csv = memory_csv, o.stand_in_gpu = stand_in, o.rows_csv = rows_out, o.jobs_dir = jobs_dir;
    const Catalogs catalogs(config);
    std::cout << "# ptp_eval_memory: " << memory_csv << "\n\n" << evaluate_memory(o, catalogs).markdown;
  } catch (const std::exception& e) {
    std::cerr << "ptp_eval_memory: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
