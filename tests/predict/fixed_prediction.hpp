#pragma once
// One fixed, hand-built Prediction (not a model's answer: the numbers are arbitrary and only test the
// printers), shared by the golden tests of the predict and --search formats.
#include "ptp/predict/energy.hpp"
#include "ptp/predict/prediction.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::test {

using namespace ptp::predict;

inline Prediction fixed_prediction() {
  Prediction p;
  p.model = "bert-large";
  p.precision = "amp_fp16";
  p.gpu = "a100-sxm4-80gb";
  p.framework = "pytorch";
  p.attention_kernel = "cudnn";
  p.stack = {{"overlap.grad_reduce", true, false, "exposed", ""}, {"cuda_graphs", false, false, "off", ""}};
  p.num_gpus = 16, p.nodes = 2, p.gpus_per_node = 8, p.grad_accum = 2;
  p.batch_size = 32, p.seq_len = 512;
  p.iteration_s = 0.5, p.iteration_low_s = 0.4, p.iteration_high_s = 0.625;
  auto& b = p.breakdown;
  b.forward = 0.15, b.backward = 0.3, b.optimizer = 0.01, b.communication = 0.08, b.communication_exposed = 0.03;
  b.loss_scaling = 0.005, b.precision_casts = 0.004, b.framework_overhead = 0.002, b.dp_communication = 0.03;
  p.samples_per_second = 2048, p.tokens_per_second = 2048.0 * 512, p.tokens_per_second_per_gpu = 2048.0 * 512 / 16;
  p.model_flops_per_step = 1e15, p.mfu = 0.4, p.mfu_precision_peak = 0.4;
  p.mfu_peak_basis = "bf16 dense 312.0 TFLOP/s", p.mfu_precision_peak_basis = "fp16 dense 312.0 TFLOP/s";
  p.layout.data = 16, p.layout.microbatches = 2;
  p.job_file = "configs/jobs/example.yaml", p.set_flags = {"cluster.num_gpus=16"};
  p.total_steps = 1000, p.total_seconds = 560, p.gpu_hours = 560.0 / 3600 * 16;
  p.evaluations = 2, p.eval_seconds = 40, p.checkpoints = 1, p.checkpoint_seconds = 20;
  p.has_cost = true, p.cost_usd = p.gpu_hours * 2.5, p.usd_per_hour = 2.5 * 16;
  p.price.source = "catalog", p.price.usd_per_gpu_hour = 2.5, p.price.label = "catalog (Example Cloud, 2026-01)";
  p.memory.convention = "master_weights";
  p.memory.weights = 1.4e9, p.memory.master_weights = 2.8e9, p.memory.gradients = 1.4e9;
  p.memory.optimizer_state = 5.6e9, p.memory.activations = 10e9, p.memory.workspace = 0.3e9;
  p.memory.allocated_bytes = 21.5e9, p.memory.reserved_bytes = 23.65e9, p.memory.runtime_bytes = 1.35e9;
  p.memory.per_gpu_bytes = 25e9;
  p.memory.capacity_bytes = 80e9;
  // Energy from the breakdown above: the A100's 400 W TDP, idle by the derived share, a carbon figure.
  p.energy.valid = true, p.energy.tdp_w = 400, p.energy.idle_w = 104, p.energy.idle_derived = true;
  p.energy.has_carbon = true, p.energy.grid_gco2_per_kwh = 400;
  p.gemm_math_share = 0.8;
  update_energy(p);
  p.predictor_kind = "learned", p.bundle = "models/default";
  p.compute_learned_share = 0.75, p.communication_predictor = "learned", p.aggregator_share = 1;
  p.warnings = {"an example warning"};
  return p;
}

}  // namespace ptp::test
