#pragma once
// Model-parallel layouts (Megatron-style tensor / pipeline / context / expert parallelism and
// ZeRO/FSDP sharding): how one GPU's share of a micro-batch is derived from the whole-model
// workload, which ranks talk to which, and the arithmetic of schedules, volumes and FLOPs. An
// internal of libpredict (detail/: its analytical model and search share it, and the LLM tests check
// its arithmetic); the public surface is predict_analytical().
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ptp/predict/analytical.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

// Knobs of the parallel step model. Defaults are physical (no overlap the framework does not
// guarantee) except where a comment names the published behaviour they stand for.
struct ParallelConstants {
  // Share of TP collective time left on the critical path. Megatron-Core/TE overlap TP
  // communication with the neighbouring GEMMs (tp_comm_overlap, userbuffers) in the NVIDIA
  // recipes; torchtitan's async TP does the same. Calibrated on the Megatron-Bridge TP rows.
  double tp_exposed = 0.5;
  // Pipeline p2p sends are batched and overlapped with compute in Megatron's schedules.
  double p2p_exposed = 0.5;
  // Fraction of compute that can hide DP/FSDP collectives issued on a side stream; the rest of the
  // collective is exposed (shared SMs and HBM slow both down).
  double dp_overlap = 0.85;
  // Expert all-to-all: Megatron overlaps dispatch/combine only with explicit flags; default exposed.
  double a2a_exposed = 1.0;
  // Context-parallel KV ring: each step's transfer overlaps the attention of the previous chunk.
  double cp_overlap = 1.0;
  // ...but at most this share of the exchange hides: the ring's send/recv kernels share SMs and HBM
  // with attention, as DP collectives share them with compute (dp_overlap's reasoning and value; an
  // assumption, no CP-resolved measurement is in the data). Before, long sequences showed none.
  double cp_hidden_max = 0.85;
  // A collective the job states as overlapped (overlap.*: true) hides behind the compute beside it,
  // at most this share of it, for the same reason (dp_overlap, cp_hidden_max).
  double stated_hidden_max = 0.85;
};

// Seconds of a `comm`-second model-parallel collective left on the critical path, where `compute`
// seconds of work could hide it: unset, the assumed exposed share; false, all of it; true, what the
// compute hides, at most stated_hidden_max of it.
double exposed_comm(double comm, double compute, std::optional<bool> overlapped, double assumed_exposed,
                    const ParallelConstants& pk);

// The parallel layout of a resolved job, with derived group sizes.
struct Layout {
  int tp = 1, pp = 1, vp = 1, cp = 1, ep = 1, dp = 1;
  bool sp = false;  // sequence parallel: replicated-activation ops split over TP ranks
  Sharding sharding = Sharding::none;
  Recompute recompute = Recompute::none;
  bool gemm_per_expert = true;  // the memory convention's: one GEMM kernel per local expert
  int gpus_per_node = 1, num_gpus = 1;
  int microbatches = 1;  // per optimizer step per DP rank (grad_accum)
  // Transformer dimensions the communication volumes need (0 for other families).
  double tokens = 0;  // per micro-batch per model replica
  double hidden = 0, kv_dim = 0, experts_per_token = 0;
  double expert_width = 0;  // what the all-to-all carries per routed token: hidden, or LatentMoE's latent
  double elem_bytes = 2;  // activations on the wire (BF16/FP16; FP32 for fp32/tf32 policies)
  bool model_parallel() const { return tp > 1 || pp > 1 || cp > 1 || ep > 1; }
  bool shards_params() const { return shards_weights(sharding); }
  bool shards_grads() const { return ptp::vocab::shards_grads(sharding); }
  bool shards_optimizer() const { return ptp::vocab::shards_optimizer(sharding); }
};
Layout make_layout(const ResolvedJob& job);
// A transformer model's widths make_layout reads from its YAML (hidden, kv_dim, experts_per_token,
// expert_width: hidden unless LatentMoE's expert_latent).
struct TransformerWidths {
  double hidden = 0, kv_dim = 0, experts_per_token = 0, expert_width = 0;
};
TransformerWidths transformer_widths(const YamlReader& model_params);

// A communicator: its size and how many of its ranks share a node (they talk over NVLink/PCIe; the
// rest crosses the node's NICs). Megatron orders ranks tp (fastest), cp, dp, pp.
struct CommGroup {
  int size = 1, ranks_per_node = 1;
};
CommGroup tp_group(const Layout& l);
CommGroup cp_group(const Layout& l);
CommGroup dp_group(const Layout& l);       // gradient reduction of dense weights: DP x CP ranks
CommGroup ep_group(const Layout& l);       // expert all-to-all
CommGroup expert_dp_group(const Layout& l);  // gradient reduction of expert weights
CommGroup hsdp_shard_group(const Layout& l);
bool pp_peer_same_node(const Layout& l);

// One GPU's copy of an op of the whole-model workload under the layout, from the op's parallel
// roles (Op::tp_role, Op::expert_split; ptp/predict/workload.hpp).
Op shard_op(const Op& op, const Layout& l);

// One pipeline stage's share of a micro-batch: the sharded ops of its virtual chunks.
struct Stage {
  int index = 0;  // its place in the pipeline (partition_stages), 0 without one
  std::vector<Op> ops;
  std::vector<std::size_t> source;  // index in the workload of each op (what memoised op times are keyed by)
  int blocks = 0;          // transformer blocks on this stage (all chunks)
  int moe_blocks = 0;      // of which carry experts
  // Tensor-parallel sub-layers (an attention or an MLP, each ending in one row-parallel reduction):
  // two per transformer block, one per layer of a hybrid stack (a Mamba-2 mixer, an attention or an
  // MLP alone).
  int tp_sublayers = 0;
  double params = 0;       // per GPU, before ZeRO/FSDP; dense (all-reduced, optimizer-swept) only
  double sparse_params = 0;   // sparsely updated embedding rows held on this GPU
  double sparse_touched = 0;  // embedding elements updated per micro-batch
  double expert_params = 0;
  // Frozen weights (LoRA base) held on this GPU: memory and FSDP gathers, nothing else.
  double frozen_params = 0, frozen_expert_params = 0;
  // Weight matrices of the blocks' projections on this GPU: linear_params, what Transformer Engine
  // keeps FP8 copies of (all but those the recipe keeps in 16 bits); frozen_linear_params, the
  // frozen ones QLoRA quantises.
  double linear_params = 0, frozen_linear_params = 0;
  // Frozen weights stored in 4 bits (Op::stored_4bit) on this GPU, and the largest one: bitsandbytes and
  // torchao dequantise a 4-bit weight whole for each matmul.
  double frozen_4bit_params = 0, largest_4bit_params = 0;
  double largest_block_params = 0;  // FSDP's unsharded working set (frozen weights included)
  double attention_core_s = 0;      // filled by stage_time
};
// Splits blocks over pp x vp chunks (chunk c goes to stage c % pp). `embedding_as_layer`: the
// embedding and the loss each take one block's slot (Megatron account_for_embedding/loss_in_
// pipeline_split), used when layers + 2 divides evenly and layers does not. `uneven`: neither
// divides, so chunks hold ceil or floor of blocks / chunks, the heavier ones first -- what
// Megatron's pipeline layouts (pipeline_model_parallel_layout, num_layers_in_last_pipeline_stage)
// and PyTorch's pipeline splitters do for e.g. Kimi K2's 61 layers over 16 chunks. The slowest
// stage then paces the pipeline. A chunk with no layer at all is refused (fits() false).
struct PipelineSplit {
  int blocks = 0;
  bool divisible = true, embedding_as_layer = false, uneven = false;
  bool fits() const { return divisible || uneven; }
  // Chunk of block b (0-based) in chunk order.
  int chunk_of_block(int b, int chunks) const;
};
PipelineSplit pipeline_split(int blocks, int pp, int vp);
std::vector<Stage> partition_stages(const Workload& w, const Layout& l);
int count_blocks(const Workload& w);

// Schedule arithmetic. 1F1B: (pp-1) idle slots of one micro-batch; interleaved: (pp-1)/vp.
double bubble_fraction(int pp, int vp, int microbatches);  // bubble / (m x t_microbatch)
// Micro-batches whose activations a stage holds at the 1F1B peak (first stage is the worst);
// interleaving adds (pp-1)/(pp*vp) of a pipeline's worth (Korthikanti et al. 2022, sec. 4.2.3).
double in_flight_microbatches(int pp, int vp, int microbatches, int stage);

// Collectives over a group, same bandwidth logic as allreduce_time: NVLink/PCIe inside a node, the
// node's NICs across nodes (shared by the node's concurrent groups). `bytes` is the full buffer.
enum class Collective { all_reduce, reduce_scatter, all_gather, all_to_all };
double collective_seconds(Collective c, double bytes, const CommGroup& g, const ResolvedJob& job,
                          const AnalyticalConstants& k, int buckets = 1);
double p2p_seconds(double bytes, bool same_node, const ResolvedJob& job, const AnalyticalConstants& k);
double bus_factor(Collective c, int n);  // bytes on the wire per byte of buffer, per rank

// Communication volumes (bytes of buffer, per GPU, per micro-batch unless noted).
struct TpVolume {
  int collectives = 0;   // per block, forward + backward
  Collective kind = Collective::all_reduce;
  double bytes = 0;      // buffer size of each
};
// Megatron: 2 all-reduces forward + 2 backward per block; with sequence parallel each becomes an
// all-gather + reduce-scatter pair (same bytes on the wire, activations between them split).
TpVolume tp_volume_per_block(double tokens, double hidden, double elem_bytes, int tp, bool sp);
struct ShardingVolume {
  double all_gather = 0, reduce_scatter = 0, all_reduce = 0;  // buffer bytes per optimizer step
};
ShardingVolume sharding_volume(double params, double param_bytes, double grad_bytes, Sharding sharding,
                               int microbatches);
// Ring attention: each rank passes its K,V chunk cp-1 times forward; backward passes K,V and dK,dV.
double cp_bytes_per_block(double tokens_per_rank, double kv_dim_per_rank, double elem_bytes, int cp);
// Expert parallel: dispatch + combine forward and backward per MoE block.
double ep_bytes_per_block(double tokens_per_rank, double hidden, double topk, double elem_bytes);

// Model FLOPs (the MFU numerator): 3 x forward FLOPs of the GEMMs (6 N per token with N the
// matmul parameters, active experts only) and attention counted without the causal halving
// (12 L s d per token, the PaLM / Megatron convention). Convs and RNN cells count at their direct
// FLOPs; include_conv = false leaves convs out (cuDNN's FP32 Winograd kernels beat their direct count).
double model_flops_per_microbatch(const Workload& w, bool include_conv = true);
// Of those: attention scores and context (batched GEMMs and fused attention), which 6 x N leaves out.
double attention_model_flops_per_microbatch(const Workload& w);
// mfu_reference_peak, precision_peak and fill_mfu are public: ptp/predict/analytical.hpp.

// Per-stage, per-micro-batch times on one GPU.
struct StageTime {
  double fwd = 0, bwd = 0, recompute = 0, casts = 0, bwd_casts = 0, launch_fwd = 0, launch_bwd = 0;
  double gpu_fwd = 0, gpu_bwd = 0;
  double gpu_gemm = 0;  // of gpu_fwd + gpu_bwd: ops on the GEMM math mode (GEMMs, convs, attention)
  // Of gpu_fwd + gpu_bwd: seconds the learned compute level answered, and the rest by op kind
  // (only when a learned op model is plugged in).
  double gpu_learned = 0;
  std::map<OpKind, double> roofline_by_kind;
  double tp_comm = 0, tp_exposed = 0, cp_comm = 0, cp_exposed = 0, ep_comm = 0, ep_exposed = 0;
  double p2p_comm = 0, p2p_exposed = 0;
  double total() const { return fwd + bwd + recompute + tp_exposed + cp_exposed + ep_exposed + p2p_exposed; }
  std::vector<TraceLayer> layers;
  std::vector<double> layer_params;
};
// `layer_names`: name each of StageTime::layers (the trace's); without them only the times are kept.
StageTime stage_time(const Stage& s, const ResolvedJob& job, const Layout& l, const AnalyticalConstants& k,
                     const ParallelConstants& pk, bool layer_names = true);

// Data-parallel gradient/parameter traffic of one stage and what of it is exposed per step.
struct DpComm {
  double total = 0, exposed = 0;
};
DpComm dp_communication(const Stage& s, const StageTime& t, const ResolvedJob& job, const Layout& l,
                        const AnalyticalConstants& k, const ParallelConstants& pk);

// predict_analytical with explicit parallel-model constants (the evaluation varies them).
Prediction predict_analytical(const ResolvedJob& job, const AnalyticalConstants& k, const ParallelConstants& pk);

// Per-GPU memory of one stage under the layout.
MemoryEstimate stage_memory(const Stage& s, int stage_index, const ResolvedJob& job, const Layout& l,
                            const AnalyticalConstants& k);

}  // namespace ptp::predict
