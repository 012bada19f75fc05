#include "ptp/profile/columns.hpp"

#include "ptp/vocab/dataset_schema.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

std::vector<std::string> extra_columns(Table t) {
  if (t == Table::ops)
    return {"time_s_mean", "noise_rel", "stop_rule", "l2_flush", "backend", "ctr_dram_throughput_pct",
            "ctr_tensor_active_pct", "ctr_gpu_time_s"};
  // The collectives schema has no reason or spread columns; failing points still need a reason.
  return {"reason", "time_s_min", "time_s_max", "reps", "noise_rel", "stop_rule", "backend"};
}

std::vector<std::string> context_columns() {
  return {"ctx_time_utc",   "ctx_hostname",     "ctx_cpu",         "ctx_cpus",      "ctx_os",
          "ctx_ptp_version", "ctx_blas",        "ctx_mpi",         "ctx_gpu_name",  "ctx_gpu_cc",
          "ctx_gpu_sms",    "ctx_gpu_clock_mhz", "ctx_mem_clock_mhz", "ctx_mem_bus_bits", "ctx_gpu_mem_gb",
          "ctx_l2_mb",      "ctx_driver",       "ctx_cuda_runtime", "ctx_cublas",   "ctx_cudnn",
          "ctx_nccl",       "ctx_cupti",        "ctx_topology",    "ctx_gpus_visible"};
}

std::vector<std::string> output_header(Table t) {
  std::vector<std::string> h = (t == Table::ops ? ops_schema() : collectives_schema()).column_names();
  for (auto& c : extra_columns(t)) h.push_back(c);
  for (auto& c : context_columns()) h.push_back(c);
  return h;
}

}  // namespace ptp::profile
