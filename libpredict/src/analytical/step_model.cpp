// Composes op times into one optimizer step: grad_accum x (forward + backward), all-reduce buckets
// overlapped with the last backward, optimizer and loss-scaling passes.
#include <algorithm>
#include <cmath>
#include <map>

#include "ptp/predict/analytical.hpp"

namespace ptp {

namespace {

double optimizer_bytes_per_param(const ResolvedJob& job) {
  const auto& p = *job.policy;
  const std::string& o = job.job.optimizer;
  const double states = o == "sgd" ? 0 : (o == "momentum" ? 1 : 2);
  // read+write FP32 weights (the master copy when there is one), read grads, read+write each state,
  // and write the low-precision copy back when the master weights are separate.
  double bytes = 8 + p.grad_bytes + states * 2 * p.optimizer_state_bytes;
  if (p.master_weight_bytes > 0) bytes += p.param_bytes;
  if (o == "lamb") bytes += 8;  // per-layer trust-ratio norms re-read weights and updates
  return bytes;
}

struct BackwardSchedule {
  double exposed_s = 0;
  std::vector<TraceBucket> buckets;
};

// Gradients become ready layer by layer in reverse order during the last backward pass; buckets are
// reduced in order on a separate stream.
BackwardSchedule schedule_allreduce(const ResolvedJob& job, const std::vector<TraceLayer>& layers,
                                    const std::vector<double>& layer_params, double backward_s,
                                    const AnalyticalConstants& k) {
  BackwardSchedule s;
  const double elem = job.policy->comm_bytes;
  const double total_bytes = job.workload.params() * elem;
  const auto whole = allreduce_time(total_bytes, job, k);
  if (whole.buckets == 0) return s;
  const double bus_s_per_byte = (2.0 * (job.data_parallel - 1) / job.data_parallel) / (whole.bus_bandwidth_gbs * 1e9);
  const double latency = whole.last_bucket_s - bus_s_per_byte * (total_bytes - (whole.buckets - 1) * k.bucket_bytes);
  double gpu_bwd_sum = 0;
  for (const auto& l : layers) gpu_bwd_sum += l.backward_s;
  const double scale = gpu_bwd_sum > 0 ? backward_s / gpu_bwd_sum : 0;
  double t = 0, pending = 0, comm_free = 0;
  auto flush = [&](double ready) {
    if (pending <= 0) return;
    double dur = bus_s_per_byte * pending + latency;
    const double start = std::max(ready, comm_free);
    if (start < backward_s) dur /= k.overlap_efficiency;  // shares SMs and memory with backward kernels
    s.buckets.push_back({start, dur});
    comm_free = start + dur;
    pending = 0;
  };
  for (std::size_t i = layers.size(); i-- > 0;) {
    t += layers[i].backward_s * scale;
    pending += layer_params[i] * elem;
    if (pending >= k.bucket_bytes) flush(t);
  }
  flush(backward_s);
  s.exposed_s = std::max(0.0, comm_free - backward_s);
  return s;
}

}  // namespace

Prediction predict_analytical(const ResolvedJob& job, const AnalyticalConstants& k) {
  const auto& j = job.job;
  const auto& p = *job.policy;
  const auto& g = *job.gpu;
  Prediction out;
  out.model = job.model->id;
  out.precision = p.id;
  out.gpu = g.id;
  out.framework = j.framework;
  out.num_gpus = j.cluster.num_gpus;
  out.nodes = job.nodes;
  out.gpus_per_node = job.gpus_per_node;
  out.grad_accum = j.grad_accum;
  out.batch_size = j.batch_size;
  out.seq_len = j.seq_len;

  std::vector<TraceLayer> layers(std::max(1, job.workload.layers));
  std::vector<double> layer_params(layers.size(), 0.0);
  double gpu_fwd = 0, gpu_bwd = 0, launch_fwd = 0, launch_bwd = 0, gemm_inputs = 0;
  for (const auto& op : job.workload.ops) {
    const OpTime t = analytical_op_time(op, job, k);
    gpu_fwd += t.forward_s;
    gpu_bwd += t.backward_s;
    launch_fwd += t.forward_launch_s;
    launch_bwd += t.backward_launch_s;
    const auto idx = static_cast<std::size_t>(std::clamp(op.layer, 0, static_cast<int>(layers.size()) - 1));
    if (layers[idx].name.empty()) {
      auto dot = op.name.find('.');
      layers[idx].name = dot == std::string::npos ? op.name : op.name.substr(0, dot);
    }
    layers[idx].forward_s += t.forward_s;
    layers[idx].backward_s += t.backward_s;
    layer_params[idx] += op.params;
    if (op.uses_gemm_math) gemm_inputs += op.elements_in;
  }
  const double bw = g.bandwidth_bytes_per_s() * k.memory_emax;
  const double params = job.workload.params();
  double casts = 0;
  if (p.weight_cast_each_step) casts += params * (4 + 2) / bw;
  if (p.fp8_scaling) casts += gemm_inputs * (2 + 1) / bw + params * (2 + 1) / bw;

  const double fwd_mb = std::max(gpu_fwd, launch_fwd) + casts;
  const double bwd_mb = std::max(gpu_bwd, launch_bwd);
  const double accum = j.grad_accum;
  auto& b = out.breakdown;
  b.precision_casts = accum * casts;
  b.framework_overhead = accum * ((fwd_mb - casts - gpu_fwd) + (bwd_mb - gpu_bwd));
  b.forward = accum * fwd_mb;
  b.backward = accum * bwd_mb;

  const auto sched = schedule_allreduce(job, layers, layer_params, bwd_mb, k);
  double comm_total = 0;
  for (const auto& bk : sched.buckets) comm_total += bk.duration_s;
  b.communication = comm_total;
  b.communication_exposed = sched.exposed_s;

  const std::string& s = j.sharding;
  const double shard = (s != "none") ? std::max(1, job.data_parallel) : 1;
  b.optimizer = params * optimizer_bytes_per_param(job) / bw / shard;
  b.loss_scaling = p.dynamic_loss_scaling ? params * p.grad_bytes * 2 / bw + k.loss_scale_sync_s : 0;

  out.iteration_s = b.forward + b.backward + b.communication_exposed + b.optimizer + b.loss_scaling + k.step_overhead_s;
  const double z = 1.2815515655446004 * k.log_sigma;
  out.iteration_low_s = out.iteration_s * std::exp(-z);
  out.iteration_high_s = out.iteration_s * std::exp(z);
  out.samples_per_second = job.samples_per_step / out.iteration_s;
  if (job.model->sequence) out.tokens_per_second = out.samples_per_second * j.seq_len;
  out.flops_per_step = (job.workload.fwd_flops() + job.workload.bwd_flops()) * accum * j.cluster.num_gpus;
  out.layers = std::move(layers);
  out.buckets = sched.buckets;
  out.memory = estimate_memory(job, k);
  if (!out.memory.fits) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "predicted memory %.1f GB per GPU exceeds %s's %.0f GB",
                  out.memory.per_gpu_bytes / 1e9, g.id.c_str(), out.memory.capacity_bytes / 1e9);
    std::string fix = "; try a smaller batch_size with grad_accum";
    if (!p.half_precision) fix += ", precision amp_bf16/amp_fp16";
    if (j.activation_checkpointing == "none") fix += ", activation_checkpointing: full";
    if (j.sharding == "none" && job.data_parallel > 1) fix += ", sharding: zero1/fsdp";
    out.warnings.push_back(buf + fix);
  }
  fill_totals(job, out);
  return out;
}

void fill_totals(const ResolvedJob& job, Prediction& p) {
  const auto& r = job.job.run;
  double steps = 0;
  if (r.steps) steps = *r.steps;
  else if (r.epochs && r.dataset_size) steps = std::ceil(*r.epochs * std::ceil(*r.dataset_size / job.samples_per_step));
  else if (r.tokens) {
    const double tokens_per_step = job.samples_per_step * std::max(1, job.job.seq_len);
    steps = std::ceil(*r.tokens / tokens_per_step);
  }
  p.total_steps = steps;
  p.total_seconds = steps * p.iteration_s;
  p.gpu_hours = p.total_seconds / 3600.0 * job.job.cluster.num_gpus;
  p.has_cost = job.job.usd_per_gpu_hour.has_value();
  p.cost_usd = p.has_cost ? p.gpu_hours * *job.job.usd_per_gpu_hour : 0;
}

}  // namespace ptp
