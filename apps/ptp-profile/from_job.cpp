#include "from_job.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "ptp/predict/analytical.hpp"
#include "ptp/predict/resolved_job.hpp"
#include "ptp/vocab/error.hpp"

namespace ptp::profile_app {

using namespace ptp::predict;  // the job side: workloads, ops, precision policies

namespace {

std::string num(double v) { return std::to_string(static_cast<long long>(std::llround(v))); }

// GEMM operand dtype for a math mode (a GpuSpec peak_tflops key).
std::string gemm_dtype(const std::string& math, std::set<std::string>& notes) {
  if (math.rfind("fp8", 0) == 0) return "fp8_e4m3";
  if (math.rfind("fp4", 0) == 0) {
    notes.insert("fp4 GEMMs are profiled as fp8_e4m3 (no fp4 microbenchmark)");
    return "fp8_e4m3";
  }
  if (math.rfind("bf16", 0) == 0) return "bf16";
  if (math.rfind("fp16", 0) == 0) return "fp16";
  if (math.rfind("tf32", 0) == 0) return "tf32";
  return "fp32";
}

// Storage dtype of a tensor class from the policy's bytes per element.
std::string storage_dtype(double bytes, const PrecisionPolicy& p) {
  if (bytes >= 4) return "fp32";
  return p.half_dtype;
}

struct Builder {
  bool host;
  JobSweep out;
  std::set<std::string> seen, notes;

  void add(std::string bench, std::map<std::string, std::string> params) {
    JobPoint p{std::move(bench), std::move(params)};
    if (seen.insert(p.key()).second) out.points.push_back(std::move(p));
  }
  void note(const std::string& s) { notes.insert(s); }

  // One GEMM (or `batch` strided GEMMs) D[m x n] = A[m x k] B[k x n].
  // pass: fwd | dgrad | wgrad; the CUDA GEMM runs FP8 forward passes with fast accumulation, as
  // Transformer Engine does, and the backward ones without.
  void gemm(double m, double n, double k, double batch, const std::string& dtype, const char* pass = "fwd") {
    if (m < 1 || n < 1 || k < 1) return;
    std::map<std::string, std::string> a{{"m", num(m)}, {"n", num(n)}, {"k", num(k)}, {"dtype", dtype}};
    if (host) {
      if (batch > 1) note("host: batched GEMMs are measured as one instance (host_gemm has no batch axis)");
      add("host_gemm", a);
      return;
    }
    a["pass"] = pass;
    if (batch > 1) {
      a["batch"] = num(batch);
      add("cublaslt_batched_gemm", a);
    } else {
      add("cublaslt_gemm", a);
    }
  }
  // Forward plus the two backward GEMMs: dgrad dX[m x k] = dY[m x n] W^T, wgrad dW[k x n] = X^T dY.
  // A frozen weight (LoRA base) has no weight gradient; its adapters are ops of their own.
  void gemm_fwd_bwd(const Op& op, const std::string& dtype) {
    gemm(op.m, op.n, op.k, op.batch, dtype, "fwd");
    if (op.input_grad) gemm(op.m, op.k, op.n, op.batch, dtype, "dgrad");
    if (!op.frozen) gemm(op.k, op.n, op.m, op.batch, dtype, "wgrad");
  }
  // A memory-bound op: its CUDA kernel, or on the host a reduction over the same elements.
  void memory(const std::string& cuda_bench, std::map<std::string, std::string> a, double elements) {
    if (host) {
      note("host: norm/softmax/pooling/loss/embedding are measured as host_reduction over their elements");
      add("host_reduction", {{"elements", num(elements)}, {"dtype", a["dtype"]}});
      return;
    }
    add(cuda_bench, std::move(a));
  }
};

// Recovers N,C,H,W,K,R,S,stride,pad of a 2-D convolution from its implicit-GEMM view (square images
// and filters, "same" padding R/2, output ceil(H/stride)); false when no unique answer exists.
struct ConvShape {
  double n, c, h, k, r, stride, pad;
};
bool recover_conv(const Op& op, double samples, ConvShape& s) {
  const double g = std::max(1.0, op.batch);
  if (samples < 1 || op.m <= 0 || std::fmod(op.m, samples) != 0) return false;
  const double pq = op.m / samples, p = std::round(std::sqrt(pq));
  if (p * p != pq) return false;
  int found = 0;
  for (double r : {1.0, 3.0, 5.0, 7.0, 9.0, 11.0}) {
    const double c = op.k * g / (r * r);
    if (c < 1 || c != std::floor(c)) continue;
    const double hw = op.elements_in / (samples * c);
    const double h = std::round(std::sqrt(hw));
    if (h * h != hw || h < r) continue;
    for (double stride : {1.0, 2.0, 3.0, 4.0}) {
      if (std::ceil(h / stride) != p) continue;
      if (++found == 1) s = {samples, c, h, op.n * g, r, stride, std::floor(r / 2)};
      break;
    }
  }
  return found == 1 && g == 1;  // cudnn_conv has no groups axis
}

std::string elementwise_kind(const std::string& name) {
  std::string l = name;
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (l.find("dropout") != std::string::npos) return "dropout";
  if (l.find("gelu") != std::string::npos || l.find("act") != std::string::npos || l.find("relu") != std::string::npos ||
      l.find("silu") != std::string::npos || l.find("swiglu") != std::string::npos)
    return "gelu";
  if (l.find("mul") != std::string::npos || l.find("scale") != std::string::npos || l.find("gate") != std::string::npos)
    return "mul";
  return "add";
}

std::string optimizer_algo(Optimizer opt, std::set<std::string>& notes) {
  switch (opt) {
    case Optimizer::adam:
      return "adam";
    case Optimizer::adamw:
      return "adamw";
    case Optimizer::sgd:
    case Optimizer::momentum:
      return "sgd_momentum";
    case Optimizer::lamb:
      break;
  }
  const std::string name = name_of(optimizer_names(), opt);
  notes.insert("optimizer " + name + " is profiled as adamw (two state tensors; no " + name + " microbenchmark)");
  return "adamw";
}

// A convolution as the three cuDNN passes, when its shape can be recovered; otherwise (and on the
// host) as its implicit GEMM.
void add_conv(Builder& b, const Op& op, const ResolvedJob& job) {
  const std::string dt = gemm_dtype(op_math_mode(op, job), b.notes);
  ConvShape s{};
  if (!b.host && recover_conv(op, job.workload.samples, s) && dt.rfind("fp8", 0) != 0) {
    const std::map<std::string, std::string> a{
        {"n", num(s.n)},           {"c", num(s.c)}, {"h", num(s.h)},           {"w", num(s.h)},
        {"k", num(s.k)},           {"r", num(s.r)}, {"s", num(s.r)},           {"stride", num(s.stride)},
        {"pad", num(s.pad)},       {"dtype", dt},   {"layout", channels_first(job.job) ? "nchw" : "nhwc"}};
    b.add("cudnn_conv_fwd", a);
    if (op.input_grad) b.add("cudnn_conv_bwd_data", a);
    if (!op.frozen) b.add("cudnn_conv_bwd_filter", a);
  } else {
    if (!b.host)
      b.note("conv '" + op.name + "': N,C,H,W,K,R,S not recoverable (grouped, 1-D or non-square); profiled as its implicit GEMM");
    b.gemm_fwd_bwd(op, dt);
  }
}

// A row-wise kernel (norm, softmax) over `elements` as rows of `cols`, or a plain reduction when they
// do not divide into rows.
void rows_or_reduction(Builder& b, const char* bench, double elements, double cols, const std::string& dtype) {
  if (cols >= 1 && std::fmod(elements, cols) == 0)
    b.memory(bench, {{"rows", num(elements / cols)}, {"cols", num(cols)}, {"dtype", dtype}}, elements);
  else
    b.memory("cuda_reduction", {{"elements", num(elements)}, {"dtype", dtype}}, elements);
}

// The microbenchmark points of one op of the workload.
void add_op(Builder& b, const Op& op, const ResolvedJob& job) {
  const Workload& w = job.workload;
  const std::string io_dtype = storage_dtype(op_element_bytes(op, job), *job.policy);  // memory-bound ops
  switch (op.kind) {
    case OpKind::gemm:
    case OpKind::attention_bmm:
    case OpKind::rnn:
      if (op.kind == OpKind::rnn) b.note("rnn: profiled as its per-step gate GEMM (m=batch, n=gates*hidden, k=in+hidden)");
      b.gemm_fwd_bwd(op, gemm_dtype(op_math_mode(op, job), b.notes));
      break;
    case OpKind::fused_attention: {
      // FlashAttention's two batched GEMMs (QK^T, PV) are the compute; no fused-kernel microbenchmark.
      b.note("fused attention: profiled as its batched GEMMs (QK^T, PV and the backward dV/dK shape; no fused-attention microbenchmark)");
      const std::string dt = gemm_dtype(op_math_mode(op, job), b.notes);
      b.gemm(op.m, op.n, op.k, op.batch, dt);  // S = Q K^T
      b.gemm(op.m, op.k, op.n, op.batch, dt);  // O = P V; backward dP = dO V^T, dQ = dS K: the same shapes
      b.gemm(op.n, op.k, op.m, op.batch, dt, "wgrad");  // backward dV = P^T dO, dK = dS^T Q
      break;
    }
    case OpKind::conv:
      add_conv(b, op, job);
      break;
    case OpKind::norm: {
      if (!b.host) b.note("norm ops (layer/batch/RMS norm) are profiled as cuda_layernorm rows x channels (same traffic)");
      const double cols = op.params > 0 ? op.params / 2 : 0;  // norm(): params = 2 * channels
      rows_or_reduction(b, "cuda_layernorm", op.elements_in, cols, io_dtype);
      break;
    }
    case OpKind::softmax: {
      const double cols = w.seq_len;
      rows_or_reduction(b, "cuda_softmax", op.elements_in, cols, io_dtype);
      break;
    }
    case OpKind::loss: {  // softmax cross-entropy over rows x classes
      const double rows = op.elements_out, cols = rows > 0 ? op.elements_in / rows : 0;
      if (rows >= 1 && cols >= 1 && cols == std::floor(cols))
        b.memory("cuda_softmax", {{"rows", num(rows)}, {"cols", num(cols)}, {"dtype", io_dtype}}, op.elements_in);
      break;
    }
    case OpKind::elementwise:
      if (op.elements_out >= 1)
        b.add(b.host ? "host_elementwise" : "cuda_elementwise",
              {{"op", elementwise_kind(op.name)}, {"elements", num(op.elements_out)}, {"dtype", io_dtype}});
      break;
    case OpKind::embedding:
      if (op.m >= 1 && op.n >= 1 && op.k >= 1)
        b.memory("cuda_embedding", {{"vocab", num(op.k)}, {"dim", num(op.n)}, {"tokens", num(op.m)}, {"dtype", io_dtype}},
                 op.elements_out);
      break;
    case OpKind::pooling:
      if (op.elements_in >= 1) b.memory("cuda_reduction", {{"elements", num(op.elements_in)}, {"dtype", io_dtype}}, op.elements_in);
      break;
  }
}

// Optimizer step over the dense parameters (FP32 master weights when params are stored in 16 bits);
// sharded optimizers (ZeRO/FSDP) step over this rank's 1/data_parallel share.
void add_optimizer(Builder& b, const ResolvedJob& job, double dense_params, double step_params) {
  if (dense_params < 1) return;
  if (b.host) {
    b.note("host: the optimizer step is not profiled (no host optimizer microbenchmark)");
    return;
  }
  const PrecisionPolicy& pol = *job.policy;
  b.add("cuda_optimizer", {{"algo", optimizer_algo(job.job.optimizer, b.notes)},
                           {"fused", "true"},
                           {"params", num(step_params)},
                           {"dtype", storage_dtype(job.state.param, pol)}});
  if (pol.dynamic_loss_scaling)
    b.add("cuda_amp_unscale", {{"elements", num(step_params)}, {"dtype", storage_dtype(job.state.grad, pol)}});
}

// Gradient all-reduce in DDP buckets of 25 MB: full buckets plus the last partial one.
void add_gradient_collectives(Builder& b, const ResolvedJob& job, double dense_params, bool sharded) {
  if (job.data_parallel <= 1 || dense_params < 1) return;
  if (b.host) {
    b.note("host: gradient all-reduce is not profiled from a job (use configs/sweeps/host-mpi.yaml under mpirun)");
    return;
  }
  const PrecisionPolicy& pol = *job.policy;
  const auto& par = job.job.parallelism;
  const double elem = pol.comm_bytes > 0 ? pol.comm_bytes : 4;
  const double total = dense_params * elem;
  const double bucket = AnalyticalConstants{}.bucket_bytes;  // the buckets the predictor models
  const double full = std::floor(total / bucket);
  const double rest = std::round((total - full * bucket) / elem) * elem;
  std::vector<double> sizes;
  if (full >= 1) sizes.push_back(bucket);
  if (rest >= 1) sizes.push_back(rest);
  // Data-parallel peers on one node: model-parallel ranks (tensor x context) are innermost.
  const int inner = std::max(1, par.tensor * par.context);
  const int per_node = std::clamp(std::max(1, job.gpus_per_node) / inner, 1, job.data_parallel);
  const int nodes = (job.data_parallel + per_node - 1) / per_node;
  const std::string dt = pol.comm_dtype.empty() ? "fp32" : pol.comm_dtype;
  // ZeRO/FSDP: gradients are reduce-scattered and parameters all-gathered instead of all-reduced.
  const std::vector<std::string> colls =
      sharded ? std::vector<std::string>{"nccl_reduce_scatter", "nccl_all_gather"} : std::vector<std::string>{"nccl_all_reduce"};
  if (sharded) b.note(std::string("sharding ") + sharding_name(job.job.sharding) + ": gradient reduce_scatter + parameter all_gather, optimizer over 1/" +
                      num(job.data_parallel) + " of the parameters");
  for (const auto& coll : colls)
    for (double sz : sizes) {
      if (per_node > 1)
        b.add(coll, {{"size_bytes", num(sz)}, {"dtype", dt}, {"ranks", num(per_node)}, {"nodes", "1"}});
      if (nodes > 1)
        b.add(coll, {{"size_bytes", num(sz)}, {"dtype", dt}, {"ranks", num(job.data_parallel)}, {"nodes", num(nodes)}});
    }
  if (nodes > 1)
    b.note("gradient collectives over " + num(job.data_parallel) + " ranks on " + num(nodes) +
           " nodes needs an MPI launch (scripts/mpi/README.md); a single-node run writes those rows as skipped");
}

}  // namespace

std::string JobPoint::key() const {
  std::string k = bench;
  for (const auto& [a, v] : params) k += "/" + a + "=" + v;
  return k;
}

JobSweep job_sweep(const ResolvedJob& job, bool host) {
  Builder b{host, {}, {}, {}};
  const Workload& w = job.workload;
  b.out.name = "job-" + w.model_id;
  b.out.ops = static_cast<int>(w.ops.size());
  double dense_params = 0;
  for (const Op& op : w.ops) {
    if (!op.sparse_update && !op.frozen) dense_params += op.params;  // what the optimizer and all-reduce see
    add_op(b, op, job);
  }
  const auto& par = job.job.parallelism;
  if (!host && (par.tensor > 1 || par.pipeline > 1 || par.context > 1 || par.expert > 1))
    b.note("tensor/context/expert-parallel and pipeline communication are not profiled (only the gradient collectives)");
  const bool sharded = shards_optimizer(job.job.sharding) && job.data_parallel > 1;
  const double step_params = sharded ? std::ceil(dense_params / job.data_parallel) : dense_params;
  add_optimizer(b, job, dense_params, step_params);
  add_gradient_collectives(b, job, dense_params, sharded);
  b.out.notes.assign(b.notes.begin(), b.notes.end());
  return b.out;
}

JobSweep load_job_sweep(const std::string& job_path, const std::string& config_dir, bool host) {
  const JobSpec spec = load_job_spec(job_path);
  const Catalogs catalogs(config_dir);
  const ResolvedJob job = resolve_job(spec, catalogs);
  return job_sweep(job, host);
}

std::string job_sweep_yaml(const JobSweep& sweep, bool host) {
  std::ostringstream y;
  y << "name: " << sweep.name << "\n";
  if (host)
    y << "settings: {warmup: 2, min_reps: 5, max_reps: 200, rel_noise: 0.03, max_time_s: 0.5, l2_flush: false}\n";
  else
    y << "settings: {warmup: 3, min_reps: 10, max_reps: 200, rel_noise: 0.02, max_time_s: 0.25, l2_flush: true}\n";
  y << "benchmarks:\n";
  for (const auto& p : sweep.points) {
    y << "  - bench: " << p.bench << "\n    axes: {";
    bool first = true;
    for (const auto& [a, v] : p.params) {
      y << (first ? "" : ", ") << a << ": [\"" << v << "\"]";
      first = false;
    }
    y << "}\n";
    if (p.bench.rfind("nccl_", 0) == 0) y << "    settings: {l2_flush: false, min_reps: 5, max_time_s: 0.5}\n";
  }
  return y.str();
}

}  // namespace ptp::profile_app
