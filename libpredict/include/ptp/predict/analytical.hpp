#pragma once
// The analytical predictor: per-op roofline at the policy's dtypes with efficiency curves,
// bucketed ring all-reduce over intra/inter-node links, backward/all-reduce overlap, optimizer and
// loss-scaling passes, and a memory estimate. Always available; the learned bundle refines it.
#include <string>

#include "ptp/predict/prediction.hpp"
#include "ptp/predict/resolved_job.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

// Learned replacements for parts of the analytical model (the bundle's compute and communication
// models plug in here; the analytical curves answer whatever they do not cover).
class OpTimeModel {
 public:
  virtual ~OpTimeModel() = default;
  // Seconds for one launch of `op` (forward when !backward), or a negative value to decline.
  // `analytical_s` is the analytical kernel time the answer replaces.
  virtual double seconds(const Op& op, const ResolvedJob& job, bool backward, double analytical_s) const = 0;
};
class CollectiveTimeModel {
 public:
  virtual ~CollectiveTimeModel() = default;
  // Seconds for one all-reduce of `bytes` over the job's data-parallel group, or negative to decline.
  virtual double allreduce_seconds(double bytes, const ResolvedJob& job, double analytical_s) const = 0;
};

// Efficiency-curve and overhead constants. Efficiency for a kernel doing `work` is
// e_max * work / (work + peak_rate * t_half): small kernels cannot fill a big GPU, which is why a
// constant efficiency overestimates new, faster GPUs.
struct AnalyticalConstants {
  // Calibrated once against the public runs (datasets/runs.csv; docs/constants.md).
  double gemm_tc_emax = 0.60, gemm_simt_emax = 0.70, gemm_t_half_s = 6e-6;
  // FP32 (non-tensor-core) 3x3 stride-1 convs: cuDNN's Winograd kernels need fewer multiplies than
  // the direct count, F(2x2,3x3) 2.25x and F(4x4,3x3) 4x; after transform overheads ~1.7x effective on
  // small maps. Maps of at least 32x32 output pixels fill the larger F(4x4) tiles: 2.2x
  // (docs/constants.md: how the split judged it).
  double winograd_simt_speedup = 1.7;
  double winograd_large_map_speedup = 2.2, winograd_large_map_pixels = 1024;
  // Depthwise convs stream memory at this fraction of memory_emax (strided per-channel access,
  // weight-gradient reductions across the batch); calibrated globally with the line above.
  double depthwise_memory_factor = 0.5;
  double attention_emax = 0.45, fused_attention_emax = 0.42;
  // A FlashAttention-2 class kernel (attention_kernel.hpp) on a GPU with asynchronous tensor cores
  // (sm_90+) reaches this share of the native kernel's rate. Fitted on llm-foundry's H100 runs alone
  // (flash-attn 2); torchtitan's H100/GB200 runs (PyTorch SDPA) are the out-of-source check
  // (docs/accuracy.md).
  double flash2_async_tensor_core_factor = 0.5;
  // Dense tensor-core work draws power in proportion to its rate: a GPU whose dense 16-bit peak per
  // board watt exceeds A100 SXM4's (312 TFLOP/s at 400 W, the GPU the emax values above were set on)
  // drops its clock under sustained GEMMs. Its tensor-core emax scales by (ratio)^-exponent, the
  // exponent set on the LLM runs (docs/constants.md).
  double tc_power_ref_flops_per_w = 312e12 / 400, tc_power_exponent = 0.2;
  double rnn_emax = 0.45;
  double memory_emax = 0.70, memory_t_half_s = 2e-6, gather_emax = 0.40;
  double misaligned_tensor_core_factor = 0.5;  // dims not multiples of 8 at 16-bit, 16 at 8-bit
  double launch_overhead_fwd_s = 10e-6, launch_overhead_bwd_s = 14e-6;  // PyTorch eager, per op
  double step_overhead_s = 1.5e-3;       // optimizer.zero_grad, python step bookkeeping
  double nvlink_efficiency = 0.78, pcie_efficiency = 0.70, inter_node_efficiency = 0.85;
  // With NCCL peer-to-peer disabled, intra-node collectives go GPU -> pinned host memory -> GPU
  // (SHM transport): each byte crosses PCIe twice and host memory once. Fraction of the x16 link's
  // one-way rate left: a starting value, not fitted; the ablation on Lambda's P2P-disabled runs
  // judges it.
  double shm_staged_efficiency = 0.4;
  double bucket_bytes = 25e6;            // PyTorch DDP default bucket
  double collective_base_latency_s = 15e-6;
  double overlap_efficiency = 0.85;      // fraction of backward usable to hide all-reduce
  double loss_scale_sync_s = 1e-4;       // inf/nan check forces a host sync
  // Memory beyond the training state and activations (sources: ../shared/data/memory/README.md,
  // caveat 1; PyTorch "CUDA semantics: memory management"; NCCL_BUFFSIZE in NCCL's environment docs).
  // cuBLAS/cuBLASLt workspaces come from PyTorch's caching allocator, so they are allocated: PyTorch's
  // default (aten/src/ATen/cuda/CublasHandlePool.cpp, CUBLAS_WORKSPACE_CONFIG unset) is :4096:2:16:8
  // (8.125 MiB) before sm_90 and :4096:8 (32 MiB) from sm_90 on; cuBLASLt shares it.
  double cublas_workspace_bytes = (4096.0 * 2 + 16.0 * 8) * 1024;
  double cublas_workspace_async_tc_bytes = 4096.0 * 8 * 1024;
  double allocator_slack = 0.10;  // max_reserved over max_allocated: "typically 2-15 %"
  // Outside the allocator, seen by nvidia-smi: the CUDA context and its loaded kernels (0.5-1.5 GiB;
  // 1343 MiB measured under transformers), and NCCL's channel buffers (4 MiB per channel and peer
  // direction by default) once a process has peers.
  double cuda_context_bytes = 1.0 * kBytesPerGiB;
  double nccl_buffer_bytes = 0.25 * kBytesPerGiB;
  double log_sigma = 0.45;               // band: iteration * exp(+-1.2816 * sigma) for 80 %
  const OpTimeModel* op_model = nullptr;
  const CollectiveTimeModel* collective_model = nullptr;
};

// Math mode an op runs in under the job's policy, after falling back when the GPU lacks it.
std::string op_math_mode(const Op& op, const ResolvedJob& job);
// A GEMM the job keeps in 16 bits (Op::high_precision) under a policy whose GEMMs are FP8/FP4.
bool op_kept_16bit(const Op& op, const ResolvedJob& job);
// Factor (<= 1) on a tensor-core op's emax for a GPU that cannot hold its clock at full tensor rate.
double tensor_core_power_derating(const GpuSpec& g, const AnalyticalConstants& k);
// The rate a GEMM, conv or attention kernel at math mode `math` runs against: the listed peak, less
// the FP32 datapath GA10x / AD10x CUDA-core GEMMs cannot feed (GpuSpec::simt_fp32_gemm_share).
double gemm_peak_flops(const GpuSpec& g, const std::string& math);
// A tensor-core matmul's efficiency ceiling from its base emax: halved when n or k is not a multiple
// of the math's tile (8 at 16-bit, 16 at 8-bit, 4 at TF32), then power-derated.
double tensor_core_emax(double base_emax, double n, double k_dim, const std::string& math, const GpuSpec& g,
                        const AnalyticalConstants& k);
// One kernel on the saturating roofline: `flops` at emax_compute of `peak` (emax_compute 0: a
// memory-bound op whose few FLOPs run at half the FP32 rate), `bytes` at emax_memory of the
// bandwidth; the slower of the two.
double saturating_kernel_seconds(double flops, double bytes, double peak, double emax_compute, double emax_memory,
                                 const GpuSpec& g, const AnalyticalConstants& k);
// Element size a memory-bound op (norm, softmax, loss, elementwise, pooling, embedding) reads and
// writes under the job's policy (an embedding: the weights as its memory convention stores them);
// the predictor, the learned op model and ptp-profile --from-job share it. GEMM-class ops get the
// policy's GEMM operand size (before any FP32 fallback of their math), 16-bit when kept so.
double op_element_bytes(const Op& op, const ResolvedJob& job);

struct OpTime {
  double forward_s = 0, backward_s = 0;
  double forward_launch_s = 0, backward_launch_s = 0;  // host time to launch the op
  // Seconds of forward_s / backward_s the learned compute level answered (the rest: roofline).
  double forward_learned_s = 0, backward_learned_s = 0;
};
OpTime analytical_op_time(const Op& op, const ResolvedJob& job, const AnalyticalConstants& k);

// Bus bandwidth (GB/s) of a collective among GPUs of one node: NVLink or PCIe peer-to-peer at its
// efficiency, or the host-staged path when the job disables NCCL peer-to-peer.
double intra_node_bus_gbs(const ResolvedJob& job, const AnalyticalConstants& k);

struct AllReduceEstimate {
  double seconds = 0, last_bucket_s = 0, bus_bandwidth_gbs = 0;
  int buckets = 0;
  bool learned = false;  // the learned communication level answered
};
AllReduceEstimate allreduce_time(double bytes, const ResolvedJob& job, const AnalyticalConstants& k);

MemoryEstimate estimate_memory(const ResolvedJob& job, const AnalyticalConstants& k);

Prediction predict_analytical(const ResolvedJob& job, const AnalyticalConstants& k = {});
// Its step time, breakdown and MFU alone (the same numbers): no memory estimate, layout report,
// warnings, layer names or run totals. The learned aggregator's features read only these, for two more
// compositions of every job it predicts.
Prediction predict_step_time(const ResolvedJob& job, const AnalyticalConstants& k);

// Steps, seconds, GPU-hours and cost from the per-iteration time.
void fill_totals(const ResolvedJob& job, Prediction& p);
// Dense peaks MFU is measured against: BF16 (FP16 on GPUs without BF16), and the policy's GEMM math
// (after falling back when the GPU lacks it).
struct PeakBasis {
  std::string math;
  double flops = 0;
};
PeakBasis mfu_reference_peak(const GpuSpec& g);
PeakBasis precision_peak(const GpuSpec& g, const PrecisionPolicy& p);
// Model FLOP utilisation from the per-iteration time (after anything rescales it): fills
// model_flops_per_step, mfu, mfu_precision_peak and their bases.
void fill_mfu(const ResolvedJob& job, Prediction& out);
// In words, how model_flops_per_step counts for this kind of training (JSON mfu_basis.model_flops).
std::string model_flops_basis(const FinetuneSpec& finetune);
// Fraction of the policy's dense peak that a step time implies for the job's GEMM, attention and RNN
// work, convs left out (FP32 Winograd convs legitimately beat their direct FLOP count): the training
// data's check that a published step is physically possible for the configuration it states.
double implied_matmul_utilization(const ResolvedJob& job, double step_s);

// A sweep row for a job that cannot be predicted (invalid layout for the cluster, unknown id): the
// job's identity, valid = false and the error text; every number zero. For predict_session to emit
// instead of aborting a sweep.
Prediction invalid_prediction(const JobSpec& job, const std::string& error);

}  // namespace ptp::predict
