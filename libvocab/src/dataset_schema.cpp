#include "ptp/vocab/dataset_schema.hpp"

#include "ptp/vocab/op_class.hpp"

namespace ptp::vocab {

std::vector<std::string> TableSchema::column_names() const {
  std::vector<std::string> out;
  for (const auto& c : columns) out.emplace_back(c.name);
  return out;
}

std::vector<std::string> TableSchema::required_names() const {
  std::vector<std::string> out;
  for (const auto& c : columns)
    if (c.required) out.emplace_back(c.name);
  return out;
}

const TableSchema& ops_schema() {
  static const std::string op_classes = joined_names(names_of(op_class_names()));
  static const TableSchema s{
      "ops",
      {
          {"point_id", "", true, "stable unique id of the sweep point (or source row)"},
          {"source", "", true, "dataset source (neusight, vidur, ptp-profile, ...)"},
          {"source_ref", "", false, "repo@commit:path[:line] or profiler run id"},
          {"op_class", "", true, op_classes.c_str()},
          {"op_name", "", false, "specific kernel/op name (gelu, adamw_fused, ...)"},
          {"m", "", false, "GEMM M (rows of the output)"},
          {"n", "", false, "GEMM N"},
          {"k", "", false, "GEMM K (reduction)"},
          {"batch", "", false, "batch count for batched GEMM / leading dims"},
          {"shape", "", false, "free-form shape string for ops not described by m,n,k"},
          {"dtype_in", "", true, "input storage dtype"},
          {"dtype_compute", "", false, "math mode (fp32, tf32, fp16, bf16, fp8)"},
          {"dtype_out", "", false, "output dtype"},
          {"flops", "FLOP", false, "floating-point operations of one call"},
          {"bytes", "B", false, "compulsory DRAM traffic of one call"},
          {"gpu", "", true, "GPU catalog id (or host for the host backend)"},
          {"time_s", "s", true, "median time of one call"},
          {"time_s_min", "s", false, "fastest repetition"},
          {"time_s_max", "s", false, "slowest repetition"},
          {"reps", "", false, "repetitions measured"},
          {"status", "", true, "ok | failed | unsupported | skipped"},
          {"reason", "", false, "why a point failed or was skipped"},
          {"kernel_name", "", false, "launched kernel name when known"},
          {"notes", "", false, "free text"},
      }};
  return s;
}

const TableSchema& collectives_schema() {
  static const TableSchema s{
      "collectives",
      {
          {"point_id", "", true, "stable unique id"},
          {"source", "", true, "dataset source"},
          {"source_ref", "", false, "provenance"},
          {"collective", "", true, "all_reduce | reduce_scatter | all_gather | broadcast | send_recv | all_to_all"},
          {"size_bytes", "B", true, "message size per rank as nccl-tests counts it"},
          {"dtype", "", true, "element dtype"},
          {"ranks", "", true, "participating GPUs/processes"},
          {"nodes", "", true, "nodes spanned"},
          {"ranks_per_node", "", false, "ranks on each node"},
          {"gpu", "", true, "GPU catalog id (host for host backend)"},
          {"fabric_intra", "", false, "intra-node link kind"},
          {"fabric_inter", "", false, "inter-node fabric id"},
          {"algorithm", "", false, "ring | tree | nvls | ... when known"},
          {"time_s", "s", true, "time of one collective"},
          {"algbw_GBps", "GB/s", false, "size / time"},
          {"busbw_GBps", "GB/s", false, "algbw x nccl-tests bus factor"},
          {"in_place", "", false, "1 when measured in place"},
          {"status", "", true, "ok | failed | ..."},
          {"notes", "", false, "free text"},
      }};
  return s;
}

const TableSchema& runs_schema() {
  static const TableSchema s{
      "runs",
      {
          {"run_id", "", true, "stable unique id"},
          {"source", "", true, "dle | lambda | llm"},
          {"source_ref", "", true, "repo@commit:path[:line]"},
          {"model", "", true, "zoo id (empty when the model is not in the zoo)"},
          {"model_as_published", "", false, "model name in the source"},
          {"task", "", false, "task description"},
          {"framework", "", false, "framework as published"},
          {"xla", "", false, "XLA on"},
          {"precision", "", true, "precision-policy id"},
          {"precision_as_published", "", false, "source wording"},
          {"gpu", "", true, "GPU catalog id"},
          {"gpu_as_published", "", false, "source wording"},
          {"num_gpus", "", true, "GPUs in the job"},
          {"num_nodes", "", false, "nodes"},
          {"gpus_per_node", "", false, "GPUs per node"},
          {"batch_size", "", true, "micro-batch per GPU"},
          {"batch_unit", "", false, "images | sequences | samples | tokens"},
          {"seq_len", "", false, "sequence length"},
          {"computed_seq_len", "tokens", false,
           "tokens per sequence the model really computes when it differs from seq_len (derived; e.g. length-binned "
           "BERT phase 2); empty = same as seq_len or unknown"},
          {"grad_accum", "", false, "micro-batches per optimizer step"},
          {"global_batch_size", "", false, "samples per optimizer step"},
          {"tp", "", false, "tensor-parallel degree"},
          {"pp", "", false, "pipeline-parallel degree"},
          {"cp", "", false, "context-parallel degree"},
          {"vp", "", false, "virtual pipeline stages"},
          {"ep", "", false, "expert-parallel degree"},
          {"dp", "", false, "data-parallel degree"},
          {"sharding", "", false, "none | zero1 | zero2 | zero3 | fsdp | hsdp"},
          {"activation_checkpointing", "", false, "none | selective | full"},
          {"nccl_p2p", "", false,
           "disabled | enabled | empty (unknown): whether the benchmark let NCCL use GPU peer-to-peer (NCCL_P2P_DISABLE)"},
          {"samples_per_second", "1/s", false, "total samples per second"},
          {"tokens_per_second", "1/s", false, "total tokens per second"},
          {"step_time_s", "s", true, "seconds per optimizer step"},
          {"step_time_derivation", "", false, "how step_time_s was obtained"},
          {"measurement", "", false, "epoch_average | steady_state | synthetic | unknown"},
          {"quality_flag", "", false, "';'-joined flags"},
          {"notes", "", false, "free text"},
      }};
  return s;
}

}  // namespace ptp::vocab
