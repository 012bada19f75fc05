#include <algorithm>
#include <cmath>
#include <optional>

#include "ptp/predict/detail/parallelism.hpp"
#include "analytical/step_memo.hpp"
#include "ptp/predict/launch_import.hpp"
#include "ptp/predict/resolved_job.hpp"
#include "ptp/predict/workload_transforms.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

Catalogs::Catalogs(const std::string& config_dir)
    : gpus_(load_gpu_catalog(config_dir + "/gpus")),
      fabrics_(load_fabric_catalog(config_dir + "/fabrics")),
      models_dir_(config_dir + "/models") {}

const ModelDesc& Catalogs::model(const std::string& id_or_path) const {
  const std::lock_guard<std::mutex> hold(models_lock_);
  auto it = models_.find(id_or_path);
  if (it != models_.end()) return *it->second;
  auto desc = std::make_unique<ModelDesc>(load_model(id_or_path, models_dir_));
  return *models_.emplace(id_or_path, std::move(desc)).first->second;
}

const ModelDesc& Catalogs::model_from_text(const std::string& yaml_text) const {
  const ModelDesc* launch_model = nullptr;
  {
    const std::lock_guard<std::mutex> hold(models_lock_);
    if (const auto zoo = text_zoo_.find(yaml_text); zoo != text_zoo_.end() && zoo->second) return *zoo->second;
    auto it = text_models_.find(yaml_text);
    if (it != text_models_.end() && text_zoo_.count(yaml_text)) return *it->second;
    if (it == text_models_.end()) {
      auto desc = std::make_unique<ModelDesc>(parse_model_yaml(YamlReader::load_string(yaml_text, "the launch file's model")));
      it = text_models_.emplace(yaml_text, std::move(desc)).first;
    }
    launch_model = it->second.get();
  }
  // Outside the lock: matching loads zoo models through model().
  const ModelDesc* zoo = zoo_model_matching(*launch_model, *this);
  const std::lock_guard<std::mutex> hold(models_lock_);
  text_zoo_[yaml_text] = zoo;
  return zoo ? *zoo : *launch_model;
}

namespace {
[[noreturn]] void fail(const JobSpec& j, const std::string& field, const std::string& msg) { fail_field(j, field, msg); }
[[noreturn]] void fail(const JobSpec& j, const Refusal& r) { fail_field(j, r.field, r.why); }
std::string num(double v) { return std::to_string(static_cast<long long>(v)); }

LayoutLimits layout_limits(const ModelDesc& m) {
  const auto& mp = m.params;
  LayoutLimits out;
  out.heads = mp.get_number("heads", 1, 1e4);
  if (auto mamba = mp.optional_child("mamba")) out.mamba_groups = mamba->get_number("groups", 1, 1e5, 1);
  out.experts = mp.get_number("num_experts", 0, 1e6, 0);
  const TransformerWidths widths = transformer_widths(mp);
  out.hidden = widths.hidden;
  out.kv_dim = widths.kv_dim;
  out.experts_per_token = widths.experts_per_token;
  out.expert_width = widths.expert_width;
  return out;
}

// Model-parallel layouts must cut the model where Megatron can: heads over TP ranks, blocks over
// pipeline chunks, sequence chunks over CP ranks, experts over EP ranks. A broken rule is returned,
// not thrown: a search refuses most of its layouts here, and an exception per layout (with the
// field's file:line:column looked up for its message) cost it more than the predictions it makes.
std::optional<Refusal> layout_refusal(const ResolvedJob& r, int blocks, const LayoutLimits* known) {
  const auto& j = r.job;
  const auto& par = j.parallelism;
  const auto& m = *r.model;
  const bool model_parallel = par.tensor > 1 || par.pipeline > 1 || par.context > 1 || par.expert > 1;
  if (par.virtual_pipeline > 1 && par.pipeline == 1)
    return Refusal{"parallelism.virtual_pipeline", "needs parallelism.pipeline > 1 (interleaving splits each stage)"};
  if (!model_parallel) return std::nullopt;
  if (m.family != "transformer")
    return Refusal{"parallelism", "tensor/pipeline/context/expert parallelism is modelled for transformer models; '" +
                                      m.id + "' is a " + m.family + " model (use data parallelism and sharding)"};
  // Without `known`, each number is read where it is first needed, so a model's bad field is
  // reported only by the layouts that use it.
  const auto& mp = m.params;
  const double heads = known ? known->heads : mp.get_number("heads", 1, 1e4);
  if (std::fmod(heads, par.tensor) != 0)
    return Refusal{"parallelism.tensor", num(par.tensor) + " does not divide the " + num(heads) +
                                             " attention heads of '" + m.id + "'"};
  // Megatron's MambaMixer splits the SSM groups (and so the heads) over TP ranks.
  std::optional<double> mamba_groups;
  if (known) mamba_groups = known->mamba_groups;
  else if (auto mamba = mp.optional_child("mamba")) mamba_groups = mamba->get_number("groups", 1, 1e5, 1);
  if (mamba_groups && std::fmod(*mamba_groups, par.tensor) != 0)
    return Refusal{"parallelism.tensor", num(par.tensor) + " does not divide the " + num(*mamba_groups) +
                                             " Mamba-2 groups of '" + m.id + "'"};
  const int chunks = par.pipeline * par.virtual_pipeline;
  if (par.pipeline > 1 && !pipeline_split(blocks, par.pipeline, par.virtual_pipeline).fits())
    return Refusal{par.virtual_pipeline > 1 ? "parallelism.virtual_pipeline" : "parallelism.pipeline",
                   "the " + num(blocks) + " layers of '" + m.id + "' cannot fill pipeline x virtual_pipeline = " +
                       num(chunks) + " chunks (each chunk needs at least one layer)"};
  if (par.context > 1 && j.seq_len % (2 * par.context) != 0)
    return Refusal{"parallelism.context", "seq_len " + num(j.seq_len) + " must be a multiple of 2 x context = " +
                                              num(2 * par.context) + " (load-balanced causal chunks)"};
  if (par.expert > 1) {
    const double experts = known ? known->experts : mp.get_number("num_experts", 0, 1e6, 0);
    if (experts <= 0)
      return Refusal{"parallelism.expert", "'" + m.id + "' has no experts (num_experts in its model YAML)"};
    if (std::fmod(experts, par.expert) != 0)
      return Refusal{"parallelism.expert", num(par.expert) + " does not divide the " + num(experts) +
                                               " experts of '" + m.id + "'"};
    const long dense_ranks = static_cast<long>(par.tensor) * par.context * r.data_parallel;
    if (dense_ranks % par.expert != 0)
      return Refusal{"parallelism.expert", num(par.expert) + " must divide tensor x context x data = " +
                                               num(dense_ranks) + " (expert-parallel ranks are drawn from them)"};
  }
  return std::nullopt;
}
}  // namespace

namespace {
bool gpu_runs(const GpuSpec& g, const PrecisionPolicy& p) {
  return g.sm_version() >= p.min_compute_capability && !(p.gemm_math == "tf32" && !g.has_math("tf32"));
}
}  // namespace

const PrecisionPolicy* nearest_runnable_precision(const GpuSpec& g, const PrecisionPolicy& p) {
  // Nearest GEMM operand width first (fp4 -> fp8, fp8 -> 16-bit), then the same weight handling
  // (autocast or not), then the same 16-bit dtype (an FP8 recipe keeps BF16 elsewhere).
  const PrecisionPolicy* best = nullptr;
  double best_score = 0;
  for (const auto& q : precision_table()) {
    if (q.id == p.id || !gpu_runs(g, q)) continue;
    const double score = std::abs(std::log2(q.gemm_io_bytes / p.gemm_io_bytes)) * 4 + (q.autocast != p.autocast ? 2 : 0) +
                         (q.half_dtype != p.half_dtype ? 1 : 0);
    if (!best || score < best_score) best = &q, best_score = score;
  }
  return best;
}

std::string precision_refusal(const GpuSpec& g, const PrecisionPolicy& p) {
  if (gpu_runs(g, p)) return "";
  const PrecisionPolicy* nearest = nearest_runnable_precision(g, p);
  const std::string hint = nearest ? " (the nearest precision it runs: " + nearest->id + ")" : "";
  if (g.sm_version() < p.min_compute_capability)
    return p.id + " needs sm_" + std::to_string(p.min_compute_capability) + " or newer; " + g.id + " is sm_" +
           std::to_string(g.sm_version()) + hint;
  return g.id + " has no TF32 tensor cores" + hint;
}

std::shared_ptr<const SharedWorkload> share_workload(Workload w) {
  auto s = std::make_shared<SharedWorkload>();
  s->blocks = count_blocks(w);
  s->fwd_flops = w.fwd_flops();
  s->bwd_flops = w.bwd_flops();
  s->model_flops = model_flops_per_microbatch(w, true);
  s->attention_model_flops = attention_model_flops_per_microbatch(w);
  s->workload = std::move(w);
  s->memo = std::make_shared<StepMemo>();
  return s;
}

std::shared_ptr<const SharedWorkload> share_workload(Workload w, const ModelDesc& model) {
  auto s = std::const_pointer_cast<SharedWorkload>(share_workload(std::move(w)));
  // A model missing one of them (or with one out of range) keeps the per-layout reads, and so the
  // error resolve_job reports for the layouts that need it.
  if (model.family == "transformer") try {
      s->limits = layout_limits(model);
    } catch (const InputError&) {
    }
  return s;
}

ResolvedJob resolve_job(const JobSpec& job, const Catalogs& catalogs) { return resolve_job(job, catalogs, nullptr); }

namespace {
// Everything but the workload and the layout rules: catalog entries, precision, memory convention,
// cluster shape, data-parallel degree, gradient accumulation. Unknown ids still throw (a search's
// values are checked before it starts); a rule the configuration breaks is returned.
std::optional<Refusal> resolve_frame(ResolvedJob& r, const JobSpec& job, const Catalogs& catalogs) {
  r.job = job;
  r.codebase_stack = apply_codebase_stack(r.job);
  // The field's location is looked up only for the message of an unknown id.
  const GpuSpec* gpu = catalogs.gpus().find(job.cluster.gpu);
  r.gpu = gpu ? gpu : &catalogs.gpus().get(job.cluster.gpu, field_prefix(job, "cluster.gpu"));
  r.price = resolve_price(job, *r.gpu, catalogs.gpus());
  r.policy = &precision_policy(job.precision);
  const auto& g = *r.gpu;
  const auto& p = *r.policy;
  if (std::string why = precision_refusal(g, p); !why.empty()) return Refusal{"precision", std::move(why)};
  if (p.fp8_scaling && p.gemm_math == "fp8")
    r.fp8_recipe = find_fp8_recipe(job.fp8_recipe.empty() ? kDefaultFp8Recipe : std::string_view(job.fp8_recipe));
  const auto& mem = job.memory;
  // Sharded weights are FSDP's (or ZeRO-3's) own mixed precision: the FP32 shard is the master, and
  // no such stack keeps Transformer Engine's per-weight FP8 caches. How the model computes (its loss,
  // norms, selective recompute, FP8 stash, expert GEMMs, attention stash) does not follow from the
  // sharding, so an implied convention keeps the policy default's (apply_stack_computation).
  const MemoryConvention& implied = default_memory_convention(p);
  const bool implied_fsdp = mem.convention.empty() && shards_weights(job.sharding) && p.half_precision &&
                            !p.weight_cast_each_step;
  const MemoryConvention& convention = !mem.convention.empty() ? *find_memory_convention(mem.convention)
                                       : implied_fsdp          ? *find_memory_convention("fsdp")
                                                               : implied;
  const StateOverrides overrides{mem.grad_dtype, mem.optimizer_dtype,
                                 mem.master_weights ? (*mem.master_weights ? 1 : 0) : -1, mem.cross_entropy,
                                 job.attention_kernel};
  r.state = training_state_bytes(p, convention, overrides);
  if (implied_fsdp) apply_stack_computation(r.state, implied, overrides);
  if (job.finetune.quantized_base())
    r.quantized_base_bytes = quantized_base_bytes(job.finetune.double_quant ? BaseQuantization::nf4_double
                                                                            : BaseQuantization::nf4);

  // Model: zoo id, YAML path or HF config.json, or the one the launch file defines.
  try {
    r.model = launch_defines_model(job) ? &catalogs.model_from_text(job.imported->model_yaml) : &catalogs.model(job.model);
  } catch (const ModelNotFound& e) {
    fail(job, "model", e.what());
  } catch (const InputError& e) {
    throw InputError(job.file + ": model: " + e.what());
  }
  JobSpec& rj = r.job;
  if (r.model->sequence && rj.seq_len <= 0)
    return Refusal{"seq_len", "required for sequence model '" + r.model->id + "'"};
  if (rj.batch_tokens > 0) {
    if (rj.seq_len <= 0) return Refusal{"batch_tokens", "needs seq_len to convert tokens into sequences"};
    rj.batch_size = rj.batch_tokens / rj.seq_len;
  }

  // Cluster layout.
  auto& c = rj.cluster;
  r.gpus_per_node = c.gpus_per_node > 0 ? c.gpus_per_node : std::min(c.num_gpus, g.max_gpus_per_node);
  c.gpus_per_node = r.gpus_per_node;
  r.nodes = (c.num_gpus + r.gpus_per_node - 1) / r.gpus_per_node;
  if (c.num_gpus % r.gpus_per_node != 0)
    return Refusal{"cluster.num_gpus", "must be a multiple of gpus_per_node (" + std::to_string(r.gpus_per_node) + ")"};
  const std::string fabric_id = c.inter_node.empty() ? g.default_inter_node : c.inter_node;
  const FabricSpec* fabric = catalogs.fabrics().find(fabric_id);
  r.fabric = fabric ? fabric : &catalogs.fabrics().get(fabric_id, field_prefix(job, "cluster.inter_node"));
  c.inter_node = fabric_id;

  const auto& par = rj.parallelism;
  const long model_parallel = static_cast<long>(par.tensor) * par.pipeline * par.context;
  if (c.num_gpus % model_parallel != 0)
    return Refusal{"parallelism", "tensor x pipeline x context = " + std::to_string(model_parallel) +
                                      " must divide num_gpus = " + std::to_string(c.num_gpus)};
  r.data_parallel = static_cast<int>(c.num_gpus / model_parallel);
  if (par.data > 0 && par.data != r.data_parallel)
    return Refusal{"parallelism.data", "is " + std::to_string(par.data) +
                                           " but num_gpus / (tensor x pipeline x context) = " +
                                           std::to_string(r.data_parallel)};
  if (rj.global_batch_size) {
    const double per_step = rj.batch_size * r.data_parallel;
    const double accum = *rj.global_batch_size / per_step;
    if (accum < 1 || std::fabs(accum - std::round(accum)) > 1e-9)
      return Refusal{"global_batch_size", "must be a multiple of batch_size x data-parallel degree (" +
                                              std::to_string(static_cast<long long>(per_step)) + ")"};
    rj.grad_accum = static_cast<int>(std::round(accum));
  }
  r.samples_per_step = rj.batch_size * rj.grad_accum * r.data_parallel;

  return std::nullopt;
}
}  // namespace

std::optional<ResolvedJob> resolve_shared_job(const JobSpec& job, const Catalogs& catalogs,
                                              std::shared_ptr<const SharedWorkload> workload, Refusal* refused) {
  std::optional<ResolvedJob> r(std::in_place);
  auto refusal = resolve_frame(*r, job, catalogs);
  if (!refusal) refusal = layout_refusal(*r, workload->blocks, workload->limits ? &*workload->limits : nullptr);
  if (refusal) {
    if (refused) *refused = std::move(*refusal);
    return std::nullopt;
  }
  r->shared = std::move(workload);
  return r;
}

ResolvedJob resolve_job(const JobSpec& job, const Catalogs& catalogs, std::shared_ptr<const SharedWorkload> workload) {
  if (workload) {
    Refusal refused;
    auto r = resolve_shared_job(job, catalogs, std::move(workload), &refused);
    if (!r) fail(job, refused);
    return std::move(*r);
  }
  ResolvedJob r = resolve_job_frame(job, catalogs);
  build_job_workload(r, job);
  return r;
}

ResolvedJob resolve_job_frame(const JobSpec& job, const Catalogs& catalogs) {
  ResolvedJob r;
  if (auto refused = resolve_frame(r, job, catalogs)) fail(job, *refused);
  return r;
}

void attach_workload(ResolvedJob& r, const JobSpec& job, std::shared_ptr<const SharedWorkload> workload) {
  // The layout rules as build_job_workload checks them (the model's own numbers, not the shared
  // limits), so that a refusal reads the same whichever job of a session built the workload.
  const auto& par = r.job.parallelism;
  if (auto refused = layout_refusal(r, par.pipeline > 1 ? workload->blocks : 0, nullptr)) fail(job, *refused);
  r.workload = Workload{};
  r.shared = std::move(workload);
}

void build_job_workload(ResolvedJob& r, const JobSpec& job) {
  const JobSpec& rj = r.job;
  const auto& par = rj.parallelism;
  BuildContext ctx;
  ctx.batch = rj.batch_size;
  ctx.seq_len = rj.seq_len;
  ctx.untie_embeddings = rj.memory.untie_embeddings;
  ctx.mtp_depth = rj.mtp_depth;
  try {
    r.workload = build_workload(*r.model, ctx);
  } catch (const InputError& e) {
    throw InputError(job.file + ": model: " + e.what());
  }
  if (rj.mtp_depth > 0 && !has_mtp_module(r.workload))
    fail(job, "mtp_depth", "model '" + r.model->id + "' has no multi-token prediction module (its mtp_layers is 0)");
  if (rj.sequences.any() && r.model->family != "transformer")
    fail(job, rj.sequences.avg_seq_len > 0 ? "avg_seq_len" : "packing",
         "unpadded and packed sequences are modelled for transformer models; '" + r.model->id + "' is a " +
             r.model->family + " model");
  apply_finetune(r.workload, rj, r.model->id);
  if (const auto& lp = rj.low_precision; lp.bf16_first_layers + lp.bf16_last_layers > 0) {
    const int blocks = main_stack_blocks(r.workload);
    if (lp.bf16_first_layers + lp.bf16_last_layers > blocks)
      fail(job, lp.bf16_last_layers > 0 ? "low_precision.bf16_last_layers" : "low_precision.bf16_first_layers",
           "first + last BF16 layers (" + std::to_string(lp.bf16_first_layers + lp.bf16_last_layers) +
               ") exceed the " + std::to_string(blocks) + " blocks of the main stack of '" + r.model->id + "'");
  }
  apply_low_precision(r.workload, rj.low_precision);
  apply_sequence_layout(r.workload, rj.sequences, rj.seq_len);
  // count_blocks walks every op: only when it matters.
  if (auto refused = layout_refusal(r, par.pipeline > 1 ? count_blocks(r.workload) : 0, nullptr)) fail(job, *refused);
}

}  // namespace ptp::predict
