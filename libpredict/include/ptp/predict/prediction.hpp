#pragma once
// What a predictor answers for one job. Field names mirror the JSON output.
#include <initializer_list>
#include <string>
#include <vector>
#include <utility>

#include "ptp/predict/energy.hpp"
#include "ptp/predict/price.hpp"
#include "ptp/vocab/training_layout.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

struct StepBreakdown {
  double forward = 0;        // all micro-batches, seconds per optimizer step
  double backward = 0;
  double optimizer = 0;
  double communication = 0;  // total collective time (overlapped or not)
  double communication_exposed = 0;
  double loss_scaling = 0;
  double precision_casts = 0;  // autocast weight casts / FP8 scaling, included in forward
  double framework_overhead = 0;  // host-side launch time not hidden behind GPU work
  // Model-parallel terms: seconds per optimizer step on the critical path (exposed), all included
  // in communication_exposed except pp_bubble and recompute.
  double tp_communication = 0;  // tensor-parallel all-reduce / reduce-scatter+all-gather
  double cp_communication = 0;  // context-parallel KV ring not hidden behind attention
  double ep_communication = 0;  // expert-parallel all-to-all
  double pp_communication = 0;  // pipeline stage-to-stage sends
  double dp_communication = 0;  // data-parallel all-reduce / ZeRO / FSDP gathers and reduce-scatters
  double pp_bubble = 0;         // pipeline fill and drain
  double recompute = 0;         // activation recomputation (extra forward work in the backward)
  // Every field at `k` times its length (a correction of the whole step keeps the parts adding up).
  void scale(double k) {
    for (double* part : {&forward, &backward, &optimizer, &communication, &communication_exposed, &loss_scaling,
                         &precision_casts, &framework_overhead, &tp_communication, &cp_communication,
                         &ep_communication, &pp_communication, &dp_communication, &pp_bubble, &recompute})
      *part *= k;
  }
};

// Per-GPU memory of the worst pipeline stage, in bytes, in three layers that add up: the allocated
// parts (what torch.cuda.max_memory_allocated counts), the caching allocator's slack on top of them
// (max_memory_reserved), and what lives outside the allocator (CUDA context, NCCL buffers), which
// nvidia-smi adds. per_gpu_bytes is the last: what the GPU must hold.
struct MemoryEstimate {
  std::string convention;  // the memory convention the copies follow (memory_convention.hpp)
  double weights = 0, master_weights = 0, gradients = 0, optimizer_state = 0, fp8_weight_copies = 0;
  double activations = 0, workspace = 0;
  double allocated_bytes = 0;  // the parts above
  double reserved_bytes = 0;   // allocated + allocator slack
  double runtime_bytes = 0;    // CUDA context + NCCL buffers
  double per_gpu_bytes = 0, capacity_bytes = 0;  // capacity: the GPU's memory in bytes (GiB x 2^30)
  bool fits = true;            // per_gpu_bytes <= capacity_bytes
  bool near_capacity = false;  // fits, but within kMemoryHeadroom of the capacity: a warning, not a verdict
};
// The share of a GPU's memory kept for the estimate's own error (allocator slack varies 2-15 %,
// framework buffers it does not list): a job predicted inside it is warned about, not refused.
inline constexpr double kMemoryHeadroom = 0.05;
inline constexpr double kBytesPerGiB = 1073741824.0;

// Per-layer times of one micro-batch, and the all-reduce buckets, for --trace.
struct TraceLayer {
  std::string name;
  double forward_s = 0, backward_s = 0;
};
struct TraceBucket {
  double ready_s = 0;  // offset into the backward pass when the bucket's gradients are ready
  double duration_s = 0;
};

// The parallel layout a prediction was made for (Megatron ordering: tp, cp, dp, pp).
struct LayoutSummary {
  int tensor = 1, pipeline = 1, virtual_pipeline = 1, context = 1, expert = 1, data = 1;
  bool sequence_parallel = false;
  Sharding sharding = Sharding::none;
  Recompute activation_checkpointing = Recompute::none;
  int microbatches = 1;          // per optimizer step per data-parallel rank
  double bubble_fraction = 0;    // pp_bubble / (micro-batches x per-micro-batch time)
  int memory_stage = 0;          // pipeline stage whose memory is reported (the largest)
};

// What `--calibrate` did to this prediction (absent when it was not asked for). Factors multiply
// the physical part of the step they are named after; calibration.hpp says how they were fitted.
struct CalibrationSummary {
  bool applied = false;
  int points = 0;
  int configurations = 0;            // distinct configurations among the points (1: one overall factor)
  std::vector<std::string> sources;  // where each point came from (CSV row, training log and its steady state)
  std::string method;
  std::vector<std::pair<std::string, double>> factors;
  double fit_residual = 0;           // RMS log error on the calibration points after the fit
  double uncalibrated_residual = 0;  // ... and before it
  // What people read as error: RMS of predicted / measured - 1 on the points, after and before.
  double fit_step_error = 0, uncalibrated_step_error = 0;
  double uncalibrated_iteration_s = 0;  // this job's step before calibration
};

// What a prediction took the stack to do, for one descriptor that acts on the job (overlap.*,
// cuda_graphs): stated in the job file, or assumed by the predictor.
struct StackAssumption {
  std::string field;   // the job-spec key
  bool stated = false;
  bool value = false;  // when stated, or filled from the codebase
  std::string effect;  // what the predictor does with it ("half exposed")
  std::string codebase;  // not stated, filled from this codebase's recipes (codebase_stack.hpp)
};

struct Prediction {
  // false: the job could not be predicted (e.g. an invalid layout in a sweep); `error` says why and
  // the numbers are zero.
  bool valid = true;
  std::string error;
  // The job file as given on the command line, and the --set flags (then the sweep point's values)
  // that turn it into this row: `ptp-predict JOB --set ...` predicts the row again.
  std::string job_file;
  std::vector<std::string> set_flags;
  std::string model, precision, gpu, framework;
  std::string attention_kernel;  // the fused-attention kernel family assumed; empty: no fused attention
  std::string fp8_recipe;        // how FP8 GEMM operands are scaled; empty: no FP8 GEMMs
  std::vector<StackAssumption> stack;
  int num_gpus = 1, nodes = 1, gpus_per_node = 1, grad_accum = 1;
  double batch_size = 0;
  int seq_len = 0;
  double iteration_s = 0, iteration_low_s = 0, iteration_high_s = 0;
  StepBreakdown breakdown;
  double samples_per_second = 0, tokens_per_second = 0;  // tokens 0 for non-sequence models
  double tokens_per_second_per_gpu = 0;
  // Model FLOPs utilisation: model_flops_per_step / (iteration x GPUs x peak). `mfu` uses the GPU's
  // dense BF16 peak (FP16 where it has no BF16) whatever the precision, so precisions compare on one
  // scale; `mfu_precision_peak` uses the dense peak of the policy's GEMM math (FP8 peak for fp8).
  double model_flops_per_step = 0, mfu = 0, mfu_precision_peak = 0;
  std::string mfu_peak_basis, mfu_precision_peak_basis;
  std::string model_flops_basis;  // how model_flops_per_step counts (LoRA counts frozen GEMMs' passes)
  // Of model_flops_per_step: the attention score and context FLOPs, which the 6 x N basis leaves out.
  double model_flops_attention_share = 0;
  LayoutSummary layout;
  // total_seconds: total_steps x iteration_s, plus the run's evaluations and checkpoints (run.eval,
  // run.checkpoint: the user's own seconds, which no step correction scales).
  double total_steps = 0, total_seconds = 0, gpu_hours = 0;
  double eval_seconds = 0, checkpoint_seconds = 0;
  long long evaluations = 0, checkpoints = 0;  // run.steps reaches 1e15
  bool has_cost = false;  // price.known(): cost_usd is the run's cost
  double cost_usd = 0;
  PriceQuote price;           // of one GPU-hour, and who gave it
  double usd_per_hour = 0;    // the whole cluster's: price x num_gpus (0 without a price)
  MemoryEstimate memory;
  EnergyEstimate energy;  // energy.hpp; valid when the GPU has a TDP
  std::string predictor_kind = "analytical", bundle;
  std::string bundle_checksum;  // the bundle's CHECKSUM (SHA-256 of its manifest), learned predictions only
  // Who answered: the share of predicted op time (forward + backward kernels of the paced stage)
  // that the learned compute level gave, and which level timed the data-parallel collectives.
  double compute_learned_share = 0;
  std::string communication_predictor = "analytical";  // learned | analytical
  // When learned: the share of its correction the communication level gave (less than 1 past the
  // group sizes its all-reduce rows reach, CollectiveReach; set by compose_learned).
  double communication_learned_weight = 1;
  // The share of the aggregator's learned correction (log space) this job got: 1 for a trained
  // model in a data-parallel layout, less for an unseen model or a model-parallel layout, 0 when
  // the aggregator did not answer.
  double aggregator_share = 0;
  // The learned step over the composed one: what the correction did to the step as a whole (its
  // two halves take their own factors, StepHalves; 1: none).
  double aggregator_factor = 1;
  // How near the job is to the aggregator's training runs (learned predictions only).
  struct Support {
    bool assessed = false;
    int runs_near = 0;                 // training runs within the support radius
    std::vector<std::string> outside;  // support features outside the trained range
    bool extrapolating = false;        // no run near, a feature outside the range, or the next
    std::string precision_of_one_codebase;  // the one codebase that trained the precision, not the job's
    std::string codebase;              // as the job names it
    bool codebase_known = false;       // the bundle has an offset for it
    double codebase_offset = 0;        // log space
    std::string novelty;               // what no training run had: "", "model", "gpu" or "precision"
    int gpu_runs = -1, precision_runs = -1;  // training runs on the job's GPU and in its precision (-1: not recorded)
    double thin_support_factor = 1;          // ThinSupportShares::factor: the share thin support leaves
    std::string band;                  // the manifest interval the 80 % band came from
  } support;
  std::vector<std::string> warnings;
  CalibrationSummary calibration;
  // Analytical internals kept for the learned aggregator's features, calibration and the trace.
  double flops_per_step = 0;
  double gemm_math_share = 0;  // of the paced stage's kernel time: ops on the GEMM math mode
  std::vector<TraceLayer> layers;
  std::vector<TraceBucket> buckets;
};

// Multiplies the step and every part of it (breakdown, trace layers and buckets, band, totals) by
// `factor`, and divides throughput and MFU by it: one uniform correction of the whole step.
void scale_prediction(Prediction& p, double factor);
// total_seconds, gpu_hours and cost_usd from the step, the steps and the run's overheads; every change
// of iteration_s ends here, so the overheads are never scaled with the step.
void refresh_totals(Prediction& p);
// The band's upper end for the whole run: total_steps x iteration_high_s plus the overheads.
double total_high_seconds(const Prediction& p);
// The same with one factor on the optimizer step and the exposed data-parallel communication (what
// sharding changes) and another on the rest of the step; the step's other figures follow its new length.
void scale_prediction_halves(Prediction& p, double invariant, double sharded);

}  // namespace ptp::predict
