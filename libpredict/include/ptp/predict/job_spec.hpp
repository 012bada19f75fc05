#pragma once
// The YAML job spec ptp-predict reads (and every `runs` row can be written as). Every field is
// validated here; errors name the file, line:column and field.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ptp/predict/energy.hpp"
#include "ptp/predict/job_enums.hpp"
#include "ptp/vocab/training_layout.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/yaml_reader.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

struct ClusterSpec {
  std::string gpu;
  int num_gpus = 1;
  int gpus_per_node = 0;   // 0 until resolved: min(num_gpus, 8, GPU's max)
  std::string inter_node;  // empty: the GPU's default fabric
  // NCCL peer-to-peer inside a node (false: NCCL_P2P_DISABLE=1, collectives staged through host
  // memory, as Lambda's benchmark scripts ran for a while).
  bool nccl_p2p = true;
  // What-if power cap per GPU (W); checked against the GPU's range when the job is predicted, so
  // its place in the file is kept for that message.
  std::optional<double> power_limit_w;
  int power_limit_line = 0, power_limit_column = 0;
};

struct RunSpec {
  std::optional<double> steps, epochs, dataset_size, tokens;
  // What the run does besides training steps, in the user's measured seconds each (run.eval,
  // run.checkpoint): one every every_steps optimizer steps, the last step included.
  std::optional<double> eval_every_steps, eval_seconds, checkpoint_every_steps, checkpoint_seconds;
};

struct ParallelismSpec {
  int tensor = 1, pipeline = 1, virtual_pipeline = 1, context = 1, expert = 1;
  int data = 0;  // 0: derived as num_gpus / (tensor * pipeline * context)
  bool sequence_parallel = false;
};

// How the job trains the model: every weight (full) or low-rank adapters on a frozen base (LoRA:
// Hu et al. 2021, as PEFT and NeMo implement it).
// QLoRA (Dettmers et al. 2023) is LoRA on a base whose block projections are stored in 4-bit
// NormalFloat.
struct FinetuneSpec {
  FinetuneMethod method = FinetuneMethod::full;
  int rank = 0;                        // lora and qlora
  std::vector<LoraTarget> targets;     // lora and qlora (default attention, mlp)
  bool double_quant = false;         // qlora: quantised quantisation constants
  // qlora: each 4-bit projection keeps its input for backward although its weight is frozen
  // (bitsandbytes before 0.43.2: MatMul4Bit saves its input whenever any input needs a gradient).
  bool quantized_keeps_inputs = false;
  // qlora: the LM head is stored in 4 bits as well (litgpt: Lightning's BitsandbytesPrecision replaces
  // every nn.Linear, lm_head included; PEFT/transformers and torchtune keep the head in 16 bits).
  bool quantized_head = false;
  // qlora: the 4-bit weights were quantised from an FP16 copy (Lightning's BitsandbytesPrecision), so
  // bitsandbytes dequantises each one to FP16 and casts it to the compute dtype: both copies are live.
  bool quantized_from_fp16 = false;
  // lora and qlora: the adapters' dropout probability. Each adapter module drops its own copy of its
  // input and keeps that copy and a 1-byte mask for backward (PEFT, torchtune, litgpt: nn.Dropout before
  // lora_A); how many modules a fused projection has is `adapter_modules`.
  double dropout = 0;
  AdapterModules adapter_modules = AdapterModules::per_projection;
  bool lora() const { return method == FinetuneMethod::lora || method == FinetuneMethod::qlora; }
  bool quantized_base() const { return method == FinetuneMethod::qlora; }
  bool has_target(LoraTarget t) const;
  bool targets_attention() const;  // q, k, v and the output projection
  // Whether an attention projection gets adapters: every one under targets_attention(), the q, k, v
  // ones (not the output projection) under attention_qkv.
  bool adapts_attention_projection(bool output_projection) const;
  bool targets_mlp() const;
};

// How tokens fill the seq_len slots of a sequence. avg_seq_len: real tokens per sequence (unpadded
// data); with packing, the mean document length. attention_mask: causal (or the encoder's full
// mask) over the whole sequence, or document: attention stays inside each packed document.
struct SequenceLayoutSpec {
  double avg_seq_len = 0;  // 0: every slot holds a real token
  bool packing = false;
  AttentionMask attention_mask = AttentionMask::causal;
  bool any() const { return avg_seq_len > 0 || packing || attention_mask != AttentionMask::causal; }
};

// How the framework stores the training state (memory_convention.hpp); each field left empty takes
// the convention's value, and the convention the precision policy's default.
struct MemorySpec {
  std::string convention;  // master_weights | megatron | autocast | fsdp | pure
  std::string grad_dtype, optimizer_dtype;  // fp32 | bf16 | fp16
  std::optional<bool> master_weights;
  std::string cross_entropy;  // fused | unfused | chunked
  // When data-parallel gradients are reduced under gradient accumulation: every micro-batch, or
  // only the last (FSDP no_sync, Accelerate's default accumulate(), Lightning's no_backward_sync),
  // in which case FSDP/ZeRO keep the full unsharded gradients between micro-batches.
  std::optional<GradSync> grad_sync;  // unset: micro_batch
  // Frozen weights get gradients too: FSDP1 flat parameters (use_orig_params) that mix frozen and
  // trainable weights allocate a gradient for the whole flat parameter (pytorch #91167).
  bool frozen_grads = false;
  // The framework keeps an LM head of its own where the model ties it to the token table: litgpt's
  // GPT has no tying, its checkpoint converter copies a tied embedding into lm_head (Llama 3.2 1B / 3B).
  bool untie_embeddings = false;
  bool any() const {
    return !convention.empty() || !grad_dtype.empty() || !optimizer_dtype.empty() || master_weights ||
           !cross_entropy.empty() || grad_sync || frozen_grads || untie_embeddings;
  }
};

// GEMMs a recipe keeps in 16 bits while the policy's others run FP8/FP4 (low_precision_modules()
// names the modules). Megatron: --num-layers-at-start-in-bf16 / --num-layers-at-end-in-bf16 (with
// --first-last-layers-bf16); Transformer Engine quantization recipes match modules by name. Inert
// under policies whose GEMMs are 16-bit or wider.
struct LowPrecisionSpec {
  int bf16_first_layers = 0, bf16_last_layers = 0;  // of the main stack's blocks
  std::vector<std::string> bf16_modules;
  bool any() const { return bf16_first_layers > 0 || bf16_last_layers > 0 || !bf16_modules.empty(); }
};
// Modules low_precision.bf16_modules may name, with what each covers (workload/low_precision.cpp).
const std::vector<std::pair<std::string, std::string>>& low_precision_modules();

// What the training stack overlaps with compute, as the user ran it: Megatron's --tp-comm-overlap,
// --overlap-grad-reduce, --overlap-param-gather, --overlap-p2p-comm and MoE all-to-all overlap;
// torchtitan's async TP. Unset: the predictor's assumption (ParallelConstants), said in the output.
struct OverlapSpec {
  std::optional<bool> tp_comm, grad_reduce, param_gather, p2p, a2a;
};

// launch: what the job was launched with (launch_import.hpp): one of these, a path resolved against
// the job file's folder.
struct LaunchSpec {
  std::string megatron_args, torchtitan_toml;
};
struct LaunchImport;  // launch_import.hpp

struct JobSpec {
  std::string file;  // where it came from, for messages
  std::string model;
  std::string precision;
  Framework framework = Framework::pytorch;
  // The training codebase the job runs (e.g. dle-pytorch, megatron-bridge, torchtitan: a bundle's
  // codebase_offsets name those it has runs of). Empty: unknown, a typical codebase is assumed.
  std::string codebase;
  // The fused-attention kernel family the stack runs (attention_kernel.hpp); empty: the memory
  // convention's (Transformer Engine's cuDNN attention for megatron, FlashAttention-2 for the others).
  std::string attention_kernel;
  // How the FP8 GEMMs scale their operands (fp8_recipe.hpp); empty: tensorwise. Read only when the
  // precision's GEMMs run in FP8.
  std::string fp8_recipe;
  bool xla = false;
  // Activation layout of convolutions; unset: the framework's default, which channels_first() resolves.
  std::optional<MemoryFormat> memory_format;
  double batch_size = 0;    // micro-batch per GPU in samples (set from batch_tokens when given)
  double batch_tokens = 0;  // tokens per GPU per micro-batch when the job is token-batched
  int seq_len = 0;
  int grad_accum = 1;
  std::optional<double> global_batch_size;
  Optimizer optimizer = Optimizer::adamw;
  ClusterSpec cluster;
  RunSpec run;
  std::optional<double> usd_per_gpu_hour;
  // The GPU usd_per_gpu_hour is the price of (price.hpp): cluster.gpu as the job file names it, so a
  // --set, --sweep or --search that changes the GPU prices the new one from the catalog; empty when
  // the price was given as a flag (then it is the price of whatever GPU the job runs on).
  std::string price_gpu;
  ParallelismSpec parallelism;
  Sharding sharding = Sharding::none;
  Recompute activation_checkpointing = Recompute::none;
  FinetuneSpec finetune;
  LowPrecisionSpec low_precision;
  // Multi-token prediction depths run per step; 0: one per MTP module of the model. More depths than
  // modules reuse them in turn (Megatron's mtp_num_layers with mtp_use_repeated_layer).
  int mtp_depth = 0;
  SequenceLayoutSpec sequences;
  OverlapSpec overlap;
  // The step is captured and replayed as CUDA graphs (Megatron --enable-cuda-graph / --cuda-graph-impl,
  // torch.compile mode=reduce-overhead): no per-kernel host launch. Unset: eager launches.
  std::optional<bool> cuda_graphs;
  // The optimizer steps all parameters in multi-tensor or fused kernels (PyTorch's foreach / fused
  // AdamW, Apex FusedAdam, Megatron's distributed optimizer); false: a loop of kernels per parameter
  // tensor (foreach=False). Unset: multi-tensor.
  std::optional<bool> fused_optimizer;
  // The model runs under torch.compile (or another graph compiler on an eager framework): elementwise
  // and norm chains fuse, so their memory traffic is paid once, and fewer kernels are launched.
  // Unset: eager. XLA and JAX jobs are compiled already (xla, framework).
  std::optional<bool> compile;
  MemorySpec memory;
  EnergySpec energy;
  // Where each field was written in `file`: dotted name ("cluster.gpu") -> {line, column}. Fields
  // given with --set or left out are absent. Checks made after parsing (resolve_job) point here.
  std::map<std::string, std::pair<int, int>> positions;
  // The fields a flag wrote, dotted key -> the flag as typed ("--set 'precision=fp4'"): a check made
  // after parsing blames the flag, not the file (note_flag_fields).
  std::vector<std::pair<std::string, std::string>> flag_fields;
  LaunchSpec launch;
  // What the launch file gave the job: the fields it set, the model it defines, what reading it
  // warned about. Immutable and shared by the job's copies (a search makes ~10^5); null without launch:.
  std::shared_ptr<const LaunchImport> imported;
};

// "file:line:col: field: why" for a problem with a field found after parsing; no line:col when
// the field came from --set (or was left out).
[[noreturn]] void fail_field(const JobSpec& job, const std::string& field, const std::string& why);
// The same as a prefix "file:line:col: field: ", for messages composed elsewhere.
std::string field_prefix(const JobSpec& job, const std::string& field);
// A path written in a job file (a model, a launch file) is relative to that file's folder, so a job
// runs from any directory; --emit-job writes such paths absolute.
std::string resolve_job_path(const std::string& path, const std::string& job_file);
std::string absolute_path(const std::string& path);

// key=value overrides (--set) are applied to the YAML tree before validation so they get the same
// checks and messages as the file. --unset KEY travels in the same list, so every reader of the
// overrides applies it in order: as {kUnsetMark + KEY, ""}, a key no command line can spell (NUL).
using Override = std::pair<std::string, std::string>;
inline const std::string kUnsetMark(1, '\0');
Override parse_override(const std::string& text);  // "cluster.num_gpus=64"
Override parse_unset(const std::string& key);      // "finetune.rank": remove it
// The --unset and --set flags of a command as overrides, removals first, so that
// --unset finetune --set finetune.method=lora,... replaces a whole section.
std::vector<Override> parse_overrides(const std::vector<std::string>& unsets, const std::vector<std::string>& sets);
void apply_override(YAML::Node& root, const Override& ov);
// The YAML value of each --set/--sweep flag, read once per session: a 10,000-row sweep applies
// each flag to thousands of trees. Each use gets its own copy (yaml-cpp nodes alias). One thread.
class OverrideValueCache {
 public:
  // What apply_override writes for `ov` (not an unset), `make` computing it on the first use.
  template <class Make>
  YAML::Node value(const Override& ov, Make&& make) {
    auto it = parsed_.find(ov);
    if (it == parsed_.end()) {
      ++misses;
      it = parsed_.emplace(ov, make()).first;
    } else {
      ++hits;
    }
    return copy(it->second);
  }
  std::size_t hits = 0, misses = 0;

 private:
  static YAML::Node copy(const YAML::Node& value);
  std::map<Override, YAML::Node> parsed_;
};
void apply_override(YAML::Node& root, const Override& ov, OverrideValueCache& values);

// PyTorch keeps activations channels-first unless a job converts them (channels_last); TensorFlow,
// MXNet, Paddle and JAX GPU kernels run channels-last.
bool channels_first(const JobSpec& job);
// XLA, and JAX always, compile the step as a graph: elementwise chains fuse, fewer launches.
bool graph_compiled(const JobSpec& job);

JobSpec parse_job_spec(const YamlReader& doc);
// After flags edited the file's tree: the job's price belongs to the GPU the file named (`file_gpu`,
// read before the edits), or to any GPU when a flag set it (scope of JobSpec::price_gpu).
std::string file_gpu(const YAML::Node& root);
void scope_job_price(JobSpec& job, const std::string& file_gpu, const std::vector<Override>& flags,
                     const std::vector<Override>& more_flags = {});
JobSpec load_job_spec(const std::string& path, const std::vector<Override>& overrides = {});
// The same for a document already read (YamlReader::load_string: a job given as text, named for messages).
JobSpec load_job_spec(const YamlReader& doc, const std::vector<Override>& overrides = {});
bool is_unset(const Override& ov);  // made by parse_unset
// A flag that wrote `key` wrote `field`: the same key, a field inside it (--set run.eval=... covers
// run.eval.seconds), or the section holding it.
bool flag_covers(const std::string& key, const std::string& field);
// "--set 'k=v'", "--unset 'k'" or, for a sweep point, "--sweep 'k=v'".
std::string flag_text(const Override& ov, bool sweep_point = false);
// Records in job.flag_fields which fields `flags` (then the sweep point's) wrote.
void note_flag_fields(JobSpec& job, const std::vector<Override>& flags, const std::vector<Override>& sweep_point = {});
// An error reading a field a flag wrote has no line in the file: it is rewritten to name the flag
// ("--set 'cluster.num_gpus=abc': cluster.num_gpus: expected an integer"); any other error is returned as is.
InputError blame_flags(const InputError& e, const std::vector<Override>& flags,
                       const std::vector<Override>& sweep_point = {});
// The job spec as YAML text (used to express `runs` rows and to echo resolved jobs).
std::string job_spec_to_yaml(const JobSpec& job);
// The job file with its overrides applied, as a job file of its own (ptp-predict --emit-job): every
// field it sets, a model path made absolute so the text predicts the same from any folder.
std::string merged_job_yaml(const std::string& path, const std::vector<Override>& overrides);

}  // namespace ptp::predict
