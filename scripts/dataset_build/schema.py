"""Output schemas: schema version, regeneration command and the column order of every table."""

SCHEMA_VERSION = "1"  # = ptp::kDatasetSchemaVersion (ptp/vocab/dataset_schema.hpp)
GENERATOR = "scripts/build_datasets.py"
REGEN_CMD = "python3 scripts/build_datasets.py --shared ../shared/data --out datasets/"

RUNS_COLUMNS = [
    "run_id", "source", "codebase", "source_ref", "model", "model_as_published", "task",
    "framework", "xla", "precision", "precision_as_published", "gpu",
    "gpu_as_published", "num_gpus", "num_nodes", "gpus_per_node", "batch_size",
    "batch_unit", "seq_len", "computed_seq_len", "grad_accum", "global_batch_size", "tp", "pp", "cp",
    "vp", "ep", "dp", "sharding", "activation_checkpointing", "nccl_p2p",
    "samples_per_second", "tokens_per_second", "step_time_s",
    "step_time_derivation", "measurement", "quality_flag", "notes",
]
COLL_COLUMNS = [
    "point_id", "source", "source_ref", "collective", "size_bytes", "dtype",
    "ranks", "nodes", "ranks_per_node", "gpu", "fabric_intra", "fabric_inter",
    "algorithm", "time_s", "algbw_GBps", "busbw_GBps", "in_place", "status",
    "notes",
]
OPS_COLUMNS = [
    "point_id", "source", "source_ref", "op_class", "op_name", "m", "n", "k",
    "batch", "shape", "dtype_in", "dtype_compute", "dtype_out", "flops",
    "bytes", "gpu", "time_s", "time_s_min", "time_s_max", "reps", "status",
    "reason", "kernel_name", "notes",
]

# allowed values checked by checks.check_outputs
PRECISIONS = ("fp32", "tf32", "fp16", "bf16", "amp_fp16", "amp_bf16", "fp8", "fp4")
MEASUREMENTS = ("epoch_average", "steady_state", "synthetic", "unknown")
