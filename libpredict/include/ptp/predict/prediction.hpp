#pragma once
// What a predictor answers for one job. Field names mirror the JSON output.
#include <string>
#include <vector>

namespace ptp {

struct StepBreakdown {
  double forward = 0;        // all micro-batches, seconds per optimizer step
  double backward = 0;
  double optimizer = 0;
  double communication = 0;  // total collective time (overlapped or not)
  double communication_exposed = 0;
  double loss_scaling = 0;
  double precision_casts = 0;  // autocast weight casts / FP8 scaling, included in forward
  double framework_overhead = 0;  // host-side launch time not hidden behind GPU work
};

struct MemoryEstimate {
  double weights = 0, gradients = 0, optimizer_state = 0, activations = 0, workspace = 0;
  double per_gpu_bytes = 0, capacity_bytes = 0;
  bool fits = true;
};

// Per-layer times of one micro-batch, and the all-reduce buckets, for --trace.
struct TraceLayer {
  std::string name;
  double forward_s = 0, backward_s = 0;
};
struct TraceBucket {
  double ready_s = 0;  // offset into the backward pass when the bucket's gradients are ready
  double duration_s = 0;
};

struct Prediction {
  std::string model, precision, gpu, framework;
  int num_gpus = 1, nodes = 1, gpus_per_node = 1, grad_accum = 1;
  double batch_size = 0;
  int seq_len = 0;
  double iteration_s = 0, iteration_low_s = 0, iteration_high_s = 0;
  StepBreakdown breakdown;
  double samples_per_second = 0, tokens_per_second = 0;  // tokens 0 for non-sequence models
  double total_steps = 0, total_seconds = 0, gpu_hours = 0;
  bool has_cost = false;
  double cost_usd = 0;
  MemoryEstimate memory;
  std::string predictor_kind = "analytical", bundle;
  std::vector<std::string> warnings;
  // Analytical internals kept for the learned aggregator's features and the trace.
  double flops_per_step = 0;
  std::vector<TraceLayer> layers;
  std::vector<TraceBucket> buckets;
};

}  // namespace ptp
