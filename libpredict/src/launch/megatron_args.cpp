// Megatron-LM arguments -> job fields: the rules over the flags of megatron_flag_table.cpp, most of
// them needing more than one flag. An argument list is the whole command line, so a flag left out means
// Megatron's default (overlaps off, FP32, no recompute), not ptp's assumption; docs/launch-import.md.
// Flag names, defaults and the checks mirrored here: megatron/training/arguments.py at
// NVIDIA/Megatron-LM 67f3515c8a0539d38c23f59dd8b85efdcbb3af3d.
#include "megatron_flags.hpp"
#include "ptp/predict/job_fields.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace launch {
namespace {

class Rules {
 public:
  Rules(const MegatronFlags& a, LaunchRead& out) : a_(a), out_(out) {}

  // A value is checked as the field checks it when it is read, before any rule computes with it.
  void set(const std::string& key, const std::string& text, const GivenFlag& g) {
    LaunchValue v{key, text, g.flag + (g.value.empty() ? "" : " " + g.value), a_.value_where(g)};
    checked_field_value(job_field(key), v.text, v.where, v.source + " (" + key + ")");
    out_.values.push_back(std::move(v));
  }
  // What a flag left out means: Megatron's default.
  void by_default(const std::string& key, const std::string& text, const std::string& why) {
    out_.values.push_back({key, text, why, a_.file()});
  }
  void direct(std::string_view flag, const std::string& key) {
    if (const GivenFlag* g = a_.get(flag)) set(key, a_.value(*g), *g);
  }
  void flag(std::string_view name, const std::string& key) {
    if (const GivenFlag* g = a_.get(name))
      set(key, "true", *g);
    else
      by_default(key, "false", "no " + std::string(name) + " (Megatron's default: off)");
  }
  void warn(const std::string& text) { out_.warnings.push_back(text); }

  void layout() {
    direct("--tensor-model-parallel-size", "parallelism.tensor");
    direct("--pipeline-model-parallel-size", "parallelism.pipeline");
    direct("--context-parallel-size", "parallelism.context");
    direct("--expert-model-parallel-size", "parallelism.expert");
    const GivenFlag* per_stage = a_.get("--num-layers-per-virtual-pipeline-stage");
    const GivenFlag* stages = a_.get("--num-virtual-stages-per-pipeline-rank");
    if (per_stage && stages) a_.contradiction(*per_stage, *stages, "Megatron takes one of them");
    if (per_stage) {
      if (!a_.has("--num-layers")) a_.fail(*per_stage, "needs --num-layers to count the virtual stages");
      const long long layers = a_.integer("--num-layers", 0),
                      pipeline = a_.integer("--pipeline-model-parallel-size", 1);
      const long long per = a_.integer(per_stage->flag, 1);
      if (layers % pipeline != 0 || (layers / pipeline) % per != 0)
        a_.fail(*per_stage, std::to_string(per) + " does not divide the " + std::to_string(layers / pipeline) +
                                " layers of a pipeline stage (" + std::to_string(layers) + " layers / " +
                                std::to_string(pipeline) + " stages)");
      set("parallelism.virtual_pipeline", std::to_string(layers / pipeline / per), *per_stage);
    } else {
      direct("--num-virtual-stages-per-pipeline-rank", "parallelism.virtual_pipeline");
    }
    virtual_stages_ = per_stage ? a_.integer("--num-layers", 0) / a_.integer("--pipeline-model-parallel-size", 1) /
                                      a_.integer(per_stage->flag, 1)
                                : a_.integer("--num-virtual-stages-per-pipeline-rank", 1);
    tensor_ = a_.integer("--tensor-model-parallel-size", 1);
    if (const GivenFlag* sp = a_.get("--sequence-parallel")) {
      sequence_parallel_ = tensor_ > 1;
      set("sequence_parallel", sequence_parallel_ ? "true" : "false", *sp);
    } else {
      by_default("sequence_parallel", "false", "no --sequence-parallel");
    }
  }

  void sharding() {
    const GivenFlag* torch_fsdp = a_.get("--use-torch-fsdp2");
    const GivenFlag* megatron_fsdp = a_.get("--use-megatron-fsdp");
    const GivenFlag* dist_opt = a_.get("--use-distributed-optimizer");
    if (torch_fsdp && megatron_fsdp) a_.contradiction(*torch_fsdp, *megatron_fsdp, "Megatron runs one FSDP");
    if (torch_fsdp) return set("sharding", "fsdp", *torch_fsdp);
    if (megatron_fsdp) {
      // The strategy's default is optim_grads_params at d98e8a64 (it was no_shard before).
      const GivenFlag* s = a_.get("--data-parallel-sharding-strategy");
      const std::string strategy = s ? a_.value(*s) : "optim_grads_params";
      const std::string sharding = strategy == "no_shard"             ? "none"
                                   : strategy == "optim"              ? "zero1"
                                   : strategy == "optim_grads"        ? "zero2"
                                   : strategy == "optim_grads_params" ? "zero3"
                                                                      : "";
      if (sharding.empty())
        a_.fail(*s, "unknown strategy '" + strategy + "'; expected no_shard, optim, optim_grads or optim_grads_params");
      return set("sharding", sharding, s ? *s : *megatron_fsdp);
    }
    if (dist_opt) return set("sharding", "zero1", *dist_opt);
    by_default("sharding", "none", "no --use-distributed-optimizer");
  }

  void batch_and_run() {
    direct("--micro-batch-size", "batch_size");
    direct("--global-batch-size", "global_batch_size");
    direct("--seq-length", "seq_len");
    if (const GivenFlag* g = a_.get("--rampup-batch-size"))
      warn(a_.where(*g) + ": --rampup-batch-size: batch ramp-up is not modelled; the final global batch is predicted");
    const GivenFlag* iters = a_.get("--train-iters");
    const GivenFlag* samples = a_.get("--train-samples");
    if (iters && samples) a_.contradiction(*iters, *samples, "Megatron trains for iterations or for samples");
    if (iters) set("run.steps", a_.value(*iters), *iters);
    if (samples) {
      if (!a_.has("--seq-length")) a_.fail(*samples, "needs --seq-length to count the tokens");
      const long long tokens = a_.integer(samples->flag, 1) * a_.integer("--seq-length", 1);
      set("run.tokens", std::to_string(tokens), *samples);
    }
  }

  void precision() {
    const GivenFlag* bf16 = a_.get("--bf16");
    const GivenFlag* fp16 = a_.get("--fp16");
    const GivenFlag* fp8 = a_.get("--fp8-format");
    const GivenFlag* fp4 = a_.get("--fp4-format");
    if (bf16 && fp16) a_.contradiction(*bf16, *fp16, "Megatron trains in one 16-bit type");
    if (fp8 && fp4) a_.contradiction(*fp8, *fp4, "Megatron refuses both");
    if (fp8 && fp16) warn(a_.where(*fp8) + ": --fp8-format with --fp16: ptp's fp8 keeps BF16 outside the FP8 GEMMs");
    if (fp8)
      set("precision", "fp8", *fp8);
    else if (fp4)
      set("precision", "fp4", *fp4);
    else if (bf16)
      set("precision", "bf16", *bf16);
    else if (fp16)
      set("precision", "fp16", *fp16);
    else
      by_default("precision", "fp32", "no --bf16 or --fp16 (Megatron's default: FP32)");
    by_default("memory.convention", "megatron", "a Megatron-LM argument list");
    fp8_recipe(fp8 != nullptr);
    if (const GivenFlag* g = a_.get("--first-last-layers-bf16")) {
      set("low_precision.bf16_first_layers", std::to_string(a_.integer("--num-layers-at-start-in-bf16", 1, 0)), *g);
      set("low_precision.bf16_last_layers", std::to_string(a_.integer("--num-layers-at-end-in-bf16", 1, 0)), *g);
    }
  }

  void fp8_recipe(bool fp8) {
    const GivenFlag* recipe = a_.get("--fp8-recipe");
    if (!recipe) {
      if (fp8) by_default("fp8_recipe", "tensorwise", "no --fp8-recipe (Megatron's default: delayed scaling, per tensor)");
      return;
    }
    const std::string& r = a_.value(*recipe);
    if (r != "delayed" && r != "tensorwise" && r != "mxfp8" && r != "blockwise" && r != "custom")
      a_.fail(*recipe, "unknown recipe '" + r + "'; expected delayed, tensorwise, mxfp8, blockwise or custom");
    if (!fp8) return warn(a_.where(*recipe) + ": --fp8-recipe without --fp8-format: no FP8 GEMMs");
    if (r == "blockwise" || r == "custom")
      warn(a_.where(*recipe) + ": --fp8-recipe " + r + " is read as tensorwise (ptp has no " + r + " recipe)");
    set("fp8_recipe", "tensorwise", *recipe);
  }

  void recompute() {
    const GivenFlag* granularity = a_.get("--recompute-granularity");
    const GivenFlag* old = a_.get("--recompute-activations");
    const GivenFlag* method = a_.get("--recompute-method");
    const std::string g = granularity ? a_.value(*granularity) : "";
    if (granularity && g != "selective" && g != "full")
      a_.fail(*granularity, "expected selective or full, got '" + g + "'");
    if (old && g == "full") a_.contradiction(*old, *granularity, "--recompute-activations means selective");
    if (method && (g == "selective" || (old && g.empty())))
      a_.contradiction(granularity ? *granularity : *old, *method,
                       "Megatron has no recompute method for selective recomputation");
    if (granularity)
      set("activation_checkpointing", g, *granularity);
    else if (old)
      set("activation_checkpointing", "selective", *old);
    else
      by_default("activation_checkpointing", "none", "no --recompute-granularity");
    if (method && g == "full" && a_.value(*method) == "block" && a_.has("--recompute-num-layers")) {
      const long long per_stage = a_.integer("--num-layers", 0) / a_.integer("--pipeline-model-parallel-size", 1);
      const long long n = a_.integer("--recompute-num-layers", 0, 0);
      if (n < per_stage)
        warn(a_.where(*method) + ": --recompute-method block recomputes " + std::to_string(n) + " of the " +
             std::to_string(per_stage) + " layers of each pipeline stage; read as full (every layer)");
    }
  }

  void overlaps() {
    flag("--overlap-grad-reduce", "overlap.grad_reduce");
    if (const GivenFlag* gather = a_.get("--overlap-param-gather")) {
      if (!a_.has("--overlap-grad-reduce")) a_.fail(*gather, "needs --overlap-grad-reduce (Megatron asserts it)");
      if (!a_.has("--use-distributed-optimizer") && !a_.has("--use-megatron-fsdp"))
        a_.fail(*gather, "needs --use-distributed-optimizer or --use-megatron-fsdp (Megatron asserts it)");
    }
    flag("--overlap-param-gather", "overlap.param_gather");
    if (const GivenFlag* tp = a_.get("--tp-comm-overlap"); tp && !sequence_parallel_)
      a_.fail(*tp,
              "needs --sequence-parallel and --tensor-model-parallel-size above 1 (Megatron refuses it otherwise)");
    flag("--tp-comm-overlap", "overlap.tp_comm");
    const GivenFlag* off = a_.get("--no-overlap-p2p-communication");
    const GivenFlag* on = a_.get("--overlap-p2p-communication");
    if (off && on) a_.contradiction(*on, *off, "one turns the overlap on, the other off");
    // Since Oct 2023 Megatron overlaps pipeline sends under the interleaved schedule unless told not to,
    // and never without it.
    if (off)
      set("overlap.p2p", "false", *off);
    else if (on)
      set("overlap.p2p", "true", *on);
    else
      by_default("overlap.p2p", virtual_stages_ > 1 ? "true" : "false",
                 virtual_stages_ > 1 ? "the interleaved schedule (Megatron overlaps its sends by default)"
                                     : "no interleaved schedule (Megatron overlaps no pipeline sends)");
    flag("--overlap-moe-expert-parallel-comm", "overlap.a2a");
  }

  void kernels() {
    const GivenFlag* flash = a_.get("--use-flash-attn");
    const GivenFlag* backend = a_.get("--attention-backend");
    const std::string b = backend ? a_.value(*backend) : "auto";
    if (b != "flash" && b != "fused" && b != "unfused" && b != "local" && b != "auto")
      a_.fail(*backend, "expected flash, fused, unfused, local or auto, got '" + b + "'");
    if (flash && b != "flash" && b != "auto") a_.contradiction(*flash, *backend, "--use-flash-attn asks for flash");
    if (flash)
      set("attention_kernel", "flash2", *flash);
    else if (b == "flash")
      set("attention_kernel", "flash2", *backend);
    else if (b == "fused")
      set("attention_kernel", "cudnn", *backend);
    if (const GivenFlag* g = a_.get("--cross-entropy-loss-fusion"))
      set("memory.cross_entropy", "fused", *g);
    else
      by_default("memory.cross_entropy", "unfused",
                 "no --cross-entropy-loss-fusion (Megatron's vocab-parallel cross-entropy on FP32 logits)");
    const GivenFlag* opt = a_.get("--optimizer");
    const std::string o = opt ? a_.value(*opt) : "adam";
    // Megatron's adam decouples weight decay (AdamW); its sgd has momentum 0.9 unless told otherwise.
    const std::string name = o == "adam"  ? "adamw"
                             : o == "sgd" ? (sgd_momentum() == 0 ? "sgd" : "momentum")
                                          : o;
    if (opt)
      set("optimizer", name, *opt);
    else
      by_default("optimizer", name, "no --optimizer (Megatron's default: adam, decoupled weight decay)");
    const GivenFlag* impl = a_.get("--cuda-graph-impl");
    const std::string i = impl ? a_.value(*impl) : "none";
    if (i != "none" && i != "local" && i != "transformer_engine")
      a_.fail(*impl, "expected none, local or transformer_engine, got '" + i + "'");
    if (const GivenFlag* g = a_.get("--enable-cuda-graph"))
      set("cuda_graphs", "true", *g);
    else if (const GivenFlag* e = a_.get("--external-cuda-graph"))
      set("cuda_graphs", "true", *e);
    else if (impl)
      set("cuda_graphs", i == "none" ? "false" : "true", *impl);
    else
      by_default("cuda_graphs", "false", "no --cuda-graph-impl (Megatron's default: none)");
  }

  double sgd_momentum() const {
    const GivenFlag* g = a_.get("--sgd-momentum");
    if (!g) return 0.9;  // Megatron's default
    try {
      std::size_t used = 0;
      const double m = std::stod(a_.value(*g), &used);
      if (used == g->value.size() && m >= 0 && m < 1) return m;
    } catch (const std::exception&) {
    }
    a_.fail(*g, "expected a momentum 0 .. 1, got '" + g->value + "'");
  }

  void unread() {
    if (!a_.not_read.empty()) {
      std::string list;
      for (const auto& f : a_.not_read) list += (list.empty() ? "" : ", ") + f;
      warn(a_.file() + ": " + std::to_string(a_.not_read.size()) + " argument" + (a_.not_read.size() == 1 ? "" : "s") +
           " not read (no job field for them; docs/launch-import.md lists those read): " + list);
    }
    if (!a_.unset_vars.empty()) {
      std::string list;
      for (const auto& v : a_.unset_vars) list += (list.empty() ? "" : ", ") + v;
      warn(a_.file() + ": not set in the file, so the flags they hold are not read: " + list);
    }
    for (const auto& w : a_.warnings) warn(w);
  }

 private:
  const MegatronFlags& a_;
  LaunchRead& out_;
  long long virtual_stages_ = 1, tensor_ = 1;
  bool sequence_parallel_ = false;
};

}  // namespace
}  // namespace launch

LaunchRead read_megatron_args(const std::string& path) {
  LaunchRead out;
  out.file = path;
  const launch::MegatronFlags args(launch::script_arguments(read_text_file(path, 1u << 20, "Megatron arguments"), path),
                                   path);
  launch::Rules rules(args, out);
  rules.layout();
  rules.sharding();
  rules.batch_and_run();
  rules.precision();
  rules.recompute();
  rules.overlaps();
  rules.kernels();
  launch::read_megatron_model(args, out);
  rules.unread();
  for (auto& w : out.warnings) w = one_line(w);  // flag names come from the file and may hold control characters
  return out;
}

}  // namespace ptp::predict
