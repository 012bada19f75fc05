// Composes op times into one optimizer step: per pipeline stage, grad_accum x (forward + backward +
// recompute + model-parallel communication), the pipeline bubble, data-parallel traffic overlapped
// with the compute, optimizer and loss-scaling passes.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "ptp/predict/detail/parallelism.hpp"
#include "step_memo.hpp"
#include "ptp/predict/workload_transforms.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {

double optimizer_bytes_per_param(const ResolvedJob& job) {
  const auto& s = job.state;
  const Optimizer o = job.job.optimizer;
  const double states = optimizer_state_tensors(o);
  // read+write the weights the optimizer updates (the master copy when there is one), read grads,
  // read+write each state, and write the low-precision copy back when the master weights are separate.
  double bytes = 2 * (s.master > 0 ? s.master : s.param) + s.grad + states * 2 * s.optimizer_state;
  if (s.master > 0) bytes += s.param;
  if (o == Optimizer::lamb) bytes += 8;  // per-layer trust-ratio norms re-read weights and updates
  return bytes;
}

// Trainable weight tensors of a stage: one per op that holds trainable parameters (a bias or norm
// scale beside its weight counts with it).
double parameter_tensors(const Stage& stage) {
  double n = 0;
  for (const Op& op : stage.ops) n += op.params > 0 && !op.frozen ? 1 : 0;
  return n;
}

struct BackwardSchedule {
  double exposed_s = 0;
  std::vector<TraceBucket> buckets;
  bool learned = false;  // the learned communication level timed the buckets
};

// Gradients become ready layer by layer in reverse order during the last backward pass; buckets are
// reduced in order on a separate stream.
BackwardSchedule schedule_allreduce(const ResolvedJob& job, const std::vector<TraceLayer>& layers,
                                    const std::vector<double>& layer_params, double backward_s,
                                    const AnalyticalConstants& k) {
  BackwardSchedule s;
  const double elem = job.policy->comm_bytes;
  double dense_params = 0;
  for (double lp : layer_params) dense_params += lp;
  const double total_bytes = dense_params * elem;
  const auto whole = allreduce_time(total_bytes, job, k);
  if (whole.buckets == 0) return s;
  s.learned = whole.learned;
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
  // A stack that does not overlap the reduction (overlap.grad_reduce: false) starts it after the backward.
  const bool overlapped = job.job.overlap.grad_reduce.value_or(true);
  for (std::size_t i = layers.size(); i-- > 0;) {
    t += layers[i].backward_s * scale;
    pending += layer_params[i] * elem;
    if (pending >= k.bucket_bytes) flush(overlapped ? t : backward_s);
  }
  flush(backward_s);
  s.exposed_s = std::max(0.0, comm_free - backward_s);
  return s;
}

}  // namespace

namespace {
// The descriptors that act on this job's step, each with what it was taken to mean.
std::vector<StackAssumption> stack_assumptions(const ResolvedJob& job, const Layout& l) {
  const auto& o = job.job.overlap;
  std::vector<StackAssumption> out;
  auto add = [&](const char* field, std::optional<bool> v, const char* assumed, const char* on, const char* off) {
    StackAssumption a{field, v.has_value(), v.value_or(false), !v ? assumed : *v ? on : off, ""};
    for (const CodebaseStackDefault* row : job.codebase_stack)
      if (a.field == row->field) a.stated = false, a.codebase = row->codebase;
    out.push_back(std::move(a));
  };
  if (l.tp > 1) add("overlap.tp_comm", o.tp_comm, "half exposed", "overlapped with GEMMs", "exposed");
  if (l.dp * l.cp > 1) add("overlap.grad_reduce", o.grad_reduce, "overlapped", "overlapped", "exposed");
  if (l.dp * l.cp > 1 && l.sharding != Sharding::none)
    add("overlap.param_gather", o.param_gather, "overlapped", "overlapped", "exposed");
  if (l.pp > 1) add("overlap.p2p", o.p2p, "half exposed", "overlapped", "exposed");
  if (l.ep > 1) add("overlap.a2a", o.a2a, "exposed", "overlapped", "exposed");
  if (!graph_compiled(job.job)) add("compile", job.job.compile, "eager", "fused chains", "eager");
  add("fused_optimizer", job.job.fused_optimizer, "multi-tensor", "multi-tensor", "per tensor");
  add("cuda_graphs", job.job.cuda_graphs, "off", "on", "off");
  return out;
}

// Ops the learned compute level declines (no kernel timings of their kind, or a math mode it never
// saw) are timed by the roofline; above this share of op time the prediction says so.
constexpr double kRooflineWarnShare = 0.05;

void report_compute_levels(const StageTime& t, Prediction& out, bool warn) {
  const double total = t.gpu_fwd + t.gpu_bwd;
  if (total <= 0) return;
  out.compute_learned_share = std::clamp(t.gpu_learned / total, 0.0, 1.0);
  if (!warn) return;
  double roofline = 0;
  std::string kinds;
  for (const auto& [kind, seconds] : t.roofline_by_kind) {
    roofline += seconds;
    kinds += std::string(kinds.empty() ? "" : ", ") + op_kind_name(kind);
  }
  if (roofline / total < kRooflineWarnShare) return;
  char share[32];
  std::snprintf(share, sizeof share, "%.0f %%", 100 * roofline / total);
  out.warnings.push_back("learned compute level declined " + std::string(share) + " of op time (" + kinds +
                         " ops, outside its training data): the roofline times them");
}

void add_memory_warning(const ResolvedJob& job, const Layout& l, Prediction& out) {
  const auto& p = *job.policy;
  const auto& j = job.job;
  char buf[200];
  if (out.memory.fits) {
    std::snprintf(buf, sizeof buf,
                  "predicted memory %.1f GiB per GPU is within %.0f %% of %s's %.0f GiB: allocator fragmentation may not fit",
                  out.memory.per_gpu_bytes / kBytesPerGiB, 100 * kMemoryHeadroom, job.gpu->id.c_str(),
                  out.memory.capacity_bytes / kBytesPerGiB);
  } else {
    std::snprintf(buf, sizeof buf, "predicted memory %.1f GiB per GPU exceeds %s's %.0f GiB",
                  out.memory.per_gpu_bytes / kBytesPerGiB, job.gpu->id.c_str(), out.memory.capacity_bytes / kBytesPerGiB);
  }
  std::string fix = "; try a smaller batch_size with grad_accum";
  if (!p.half_precision) fix += ", precision amp_bf16/amp_fp16";
  if (j.activation_checkpointing == Recompute::none) fix += ", activation_checkpointing: full";
  if (j.sharding == Sharding::none && job.data_parallel > 1) fix += ", sharding: zero1/fsdp";
  if (l.hidden > 0 && job.data_parallel > 1) fix += ", a larger parallelism.tensor or parallelism.pipeline";
  out.warnings.push_back(buf + fix);
}

void add_pipeline_split_warning(const PipelineSplit& split, const Layout& l, Prediction& out) {
  if (split.embedding_as_layer)
    out.warnings.push_back("layers do not divide into pipeline x virtual_pipeline chunks; the embedding and the loss "
                           "each take one layer's slot (Megatron account_for_embedding/loss_in_pipeline_split)");
  if (!split.uneven) return;
  const int chunks = l.pp * l.vp;
  out.warnings.push_back("the " + std::to_string(split.blocks) + " layers do not divide into pipeline x virtual_pipeline = " +
                         std::to_string(chunks) + " chunks: the first " + std::to_string(split.blocks % chunks) +
                         " take " + std::to_string(split.blocks / chunks + 1) + " layers, the rest " +
                         std::to_string(split.blocks / chunks) +
                         " (a Megatron pipeline layout); the heaviest stage paces the pipeline");
}
}  // namespace

// One optimizer step: every pipeline stage runs m micro-batches of forward + backward (+ recompute)
// with its model-parallel communication; the slowest stage paces the pipeline and the fill/drain
// bubble adds (pp-1)/vp of its micro-batch time; data-parallel traffic, optimizer and loss scaling
// follow. Without model parallelism or sharding this is the bucketed-DDP model.
Prediction predict_analytical(const ResolvedJob& job, const AnalyticalConstants& k) {
  return predict_analytical(job, k, ParallelConstants{});
}

namespace {
// What the step's reports need besides the time: the layout, its stages and the bubble.
struct ComposedStep {
  Layout l;
  std::shared_ptr<const std::vector<Stage>> stages;
  double bubble = 0;
};

// The step time, its breakdown, MFU and per-layer times; `report` adds the model's and the compute
// levels' warnings and names the layers.
Prediction compose_step(const ResolvedJob& job, const AnalyticalConstants& k, const ParallelConstants& pk, bool report,
                        ComposedStep& cs) {
  const auto& j = job.job;
  const auto& p = *job.policy;
  const auto& g = *job.gpu;
  cs.l = make_layout(job);
  const Layout& l = cs.l;
  Prediction out;
  out.model = job.model->id;
  out.precision = p.id;
  out.gpu = g.id;
  out.framework = name_of(framework_names(), j.framework);
  const auto& ops = job.work().ops;
  if (job.state.attention_kernel &&
      std::any_of(ops.begin(), ops.end(), [](const Op& op) { return op.kind == OpKind::fused_attention; }))
    out.attention_kernel = job.state.attention_kernel->id;
  if (job.fp8_recipe) out.fp8_recipe = job.fp8_recipe->id;
  out.num_gpus = j.cluster.num_gpus;
  out.nodes = job.nodes;
  out.gpus_per_node = job.gpus_per_node;
  out.grad_accum = j.grad_accum;
  out.batch_size = j.batch_size;
  out.seq_len = j.seq_len;
  if (report) out.warnings = job.model->warnings;  // what an import assumed (ModelDesc::warnings)

  out.stack = stack_assumptions(job, l);
  cs.stages = stages_of(job, l);
  const std::vector<Stage>& stages = *cs.stages;
  std::vector<StageTime> times;
  std::size_t slow = 0;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    times.push_back(stage_time(stages[i], job, l, k, pk, report));
    if (times[i].total() > times[slow].total()) slow = i;
  }
  const Stage& stage = stages[slow];
  StageTime& t = times[slow];
  const double m = l.microbatches;
  auto& b = out.breakdown;
  b.precision_casts = m * t.casts;
  // Host time not hidden behind GPU work: a difference of sums, so where the GPU hides it all it can
  // come out a rounding error below zero.
  b.framework_overhead = std::max(0.0, m * ((t.fwd - t.casts - t.gpu_fwd) + (t.bwd - t.bwd_casts - t.gpu_bwd)));
  b.forward = m * t.fwd;
  b.backward = m * t.bwd;
  b.recompute = m * t.recompute;
  b.tp_communication = m * t.tp_exposed;
  b.cp_communication = m * t.cp_exposed;
  b.ep_communication = m * t.ep_exposed;
  b.pp_communication = m * t.p2p_exposed;
  cs.bubble = bubble_fraction(l.pp, l.vp, l.microbatches);
  b.pp_bubble = cs.bubble * m * t.total();

  double dp_total = 0;
  if (!l.model_parallel() && l.sharding == Sharding::none) {
    const auto sched = schedule_allreduce(job, t.layers, t.layer_params, t.bwd + t.recompute, k);
    for (const auto& bk : sched.buckets) dp_total += bk.duration_s;
    b.dp_communication = sched.exposed_s;
    out.buckets = sched.buckets;
    out.communication_predictor = sched.learned ? "learned" : "analytical";
  } else {
    const auto dp = dp_communication(stage, t, job, l, k, pk);
    dp_total = dp.total;
    b.dp_communication = dp.exposed;
  }
  b.communication = dp_total + m * (t.tp_comm + t.cp_comm + t.ep_comm + t.p2p_comm);
  b.communication_exposed =
      b.dp_communication + b.tp_communication + b.cp_communication + b.ep_communication + b.pp_communication;

  const double bw = g.bandwidth_bytes_per_s() * k.memory_emax;
  const double shard = l.shards_optimizer() ? l.dp * l.cp : 1;
  // Sparse embedding updates read the row gradient and read+write the touched rows, per micro-batch.
  b.optimizer = stage.params * optimizer_bytes_per_param(job) / bw / shard + m * stage.sparse_touched * 12 / bw;
  // A loop over parameter tensors launches the update's kernels for each: launch-bound when tensors are small.
  if (!j.fused_optimizer.value_or(true))
    b.optimizer = std::max(b.optimizer, parameter_tensors(stage) * optimizer_kernels_per_tensor(j.optimizer) *
                                            k.launch_overhead_fwd_s * (j.cuda_graphs.value_or(false) ? 0 : 1));
  b.loss_scaling = p.dynamic_loss_scaling ? stage.params * job.state.grad * 2 / bw + k.loss_scale_sync_s : 0;

  out.iteration_s = b.forward + b.backward + b.recompute + b.pp_bubble + b.communication_exposed + b.optimizer +
                    b.loss_scaling + k.step_overhead_s;
  const double z = 1.2815515655446004 * k.log_sigma;
  out.iteration_low_s = out.iteration_s * std::exp(-z);
  out.iteration_high_s = out.iteration_s * std::exp(z);
  out.samples_per_second = job.samples_per_step / out.iteration_s;
  // Real tokens: an unpadded sequence carries avg_seq_len of its seq_len slots.
  if (job.model->sequence) out.tokens_per_second = out.samples_per_second * real_tokens_per_sequence(j);
  out.tokens_per_second_per_gpu = out.tokens_per_second / j.cluster.num_gpus;
  // Hardware FLOPs of all GPUs (recomputation included): one replica's work per DP rank.
  const double fwd_flops = job.shared ? job.shared->fwd_flops : job.work().fwd_flops();
  const double bwd_flops = job.shared ? job.shared->bwd_flops : job.work().bwd_flops();
  out.flops_per_step = (fwd_flops * (l.recompute == Recompute::full ? 2 : 1) + bwd_flops) * m * l.dp;
  fill_mfu(job, out);
  if (t.gpu_fwd + t.gpu_bwd > 0) out.gemm_math_share = std::clamp(t.gpu_gemm / (t.gpu_fwd + t.gpu_bwd), 0.0, 1.0);
  if (k.op_model) report_compute_levels(t, out, report);
  out.layers = std::move(t.layers);
  return out;
}
}  // namespace

Prediction predict_step_time(const ResolvedJob& job, const AnalyticalConstants& k) {
  ComposedStep cs;
  return compose_step(job, k, ParallelConstants{}, false, cs);
}

Prediction predict_analytical(const ResolvedJob& job, const AnalyticalConstants& k, const ParallelConstants& pk) {
  ComposedStep cs;
  Prediction out = compose_step(job, k, pk, true, cs);
  const Layout& l = cs.l;
  const std::vector<Stage>& stages = *cs.stages;
  const double bubble = cs.bubble;

  auto& ls = out.layout;
  ls.tensor = l.tp, ls.pipeline = l.pp, ls.virtual_pipeline = l.vp, ls.context = l.cp, ls.expert = l.ep;
  ls.data = l.dp;
  ls.sequence_parallel = l.sp;
  ls.sharding = l.sharding;
  ls.activation_checkpointing = l.recompute;
  ls.microbatches = l.microbatches;
  ls.bubble_fraction = bubble;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const auto mem = stage_memory(stages[i], static_cast<int>(i), job, l, k);
    if (i == 0 || mem.per_gpu_bytes > out.memory.per_gpu_bytes) {
      out.memory = mem;
      ls.memory_stage = static_cast<int>(i);
    }
  }
  if (!out.memory.fits || out.memory.near_capacity) add_memory_warning(job, l, out);
  if (l.pp > 1) add_pipeline_split_warning(pipeline_split(blocks_of(job), l.pp, l.vp), l, out);
  // The time is modelled (the TP group's collectives run over the inter-node fabric), but a layout
  // like this is almost always a mistake: Megatron keeps tensor parallelism inside a node.
  if (l.tp > l.gpus_per_node)
    out.warnings.push_back("tensor parallel " + std::to_string(l.tp) + " spans nodes of " +
                           std::to_string(l.gpus_per_node) + " GPUs: its per-layer collectives cross the "
                           "inter-node fabric; keep parallelism.tensor <= gpus_per_node");
  if (l.pp > 1 && l.microbatches < l.pp)
    out.warnings.push_back("fewer micro-batches (" + std::to_string(l.microbatches) + ") than pipeline stages (" +
                           std::to_string(l.pp) + "): the bubble dominates; raise global_batch_size");
  // Kept-in-BF16 GEMMs only differ from the rest when the rest are FP8/FP4 (a search may also walk
  // the job's other precisions, where the key stays in the spec and changes nothing).
  if (job.job.low_precision.any() && !job.policy->fp8_scaling)
    out.warnings.push_back("low_precision has no effect at precision " + job.job.precision +
                           ": its GEMMs are 16-bit or wider already (it applies to fp8 and fp4)");
  fill_totals(job, out);
  return out;
}

void fill_totals(const ResolvedJob& job, Prediction& p) {
  const auto& r = job.job.run;
  double steps = 0;
  if (r.steps) steps = *r.steps;
  else if (r.epochs && r.dataset_size) steps = std::ceil(*r.epochs * std::ceil(*r.dataset_size / job.samples_per_step));
  else if (r.tokens) {
    const double tokens_per_step = job.samples_per_step * std::max(1.0, real_tokens_per_sequence(job.job));
    steps = std::ceil(*r.tokens / tokens_per_step);
  }
  p.total_steps = steps;
  // One evaluation (checkpoint) every every_steps steps, the last step included, of the user's seconds
  // (a count past 9e18, from epochs x dataset_size at their limits, stays there rather than overflow).
  auto every = [steps](const std::optional<double>& every_steps) {
    return every_steps && steps > 0 ? static_cast<long long>(std::min(9e18, std::floor(steps / *every_steps))) : 0LL;
  };
  p.evaluations = every(r.eval_every_steps);
  p.checkpoints = every(r.checkpoint_every_steps);
  p.eval_seconds = p.evaluations * r.eval_seconds.value_or(0);
  p.checkpoint_seconds = p.checkpoints * r.checkpoint_seconds.value_or(0);
  p.price = job.price;
  p.has_cost = p.price.known();
  p.usd_per_hour = p.has_cost ? p.price.usd_per_gpu_hour * job.job.cluster.num_gpus : 0;
  refresh_totals(p);
}

}  // namespace ptp::predict
