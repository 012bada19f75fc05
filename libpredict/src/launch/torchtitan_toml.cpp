// torchtitan TOML job config -> job fields: the rules over the keys of torchtitan_keys.cpp. A key
// left out means torchtitan's default (local batch 8, seq_len 2048, 10000 steps, selective
// recomputation of every second layer, FSDP over the ranks left), not ptp's; docs/launch-import.md.
// Behaviour mirrored from torchtitan at e347b1e5e6b6941d789d16d340145294d82dc71e: train.py (loss
// parallel whenever TP is on and not disabled), components/loss.py (compiled loss), job_config.py
// (mixed_precision_param through fully_shard or torch.autocast; async TP only under compile).
#include "torchtitan_toml.hpp"

#include <algorithm>
#include <cctype>

#include "ptp/predict/job_fields.hpp"
#include "ptp/predict/launch_import.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {

using launch::Toml;

bool contains(const std::vector<std::string>& list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

class TitanRules {
 public:
  TitanRules(const Toml& t, LaunchRead& out) : t_(t), out_(out) {}

  // A key's value as a field: where the file gives it, or torchtitan's default for it.
  // Checked as the field checks it when it is read, before any rule computes with it.
  void set(const std::string& key, const std::string& text, std::string_view path,
           const std::string& default_why = "") {
    const toml::node* n = t_.at(path);
    LaunchValue v{key, text, "", n ? t_.where(*n) : t_.file()};
    v.source = n                     ? Toml::name(path) + " = " + launch::toml_value_text(*n)
               : default_why.empty() ? "no " + Toml::name(path) + " (torchtitan's default)"
                                     : default_why;
    checked_field_value(job_field(key), v.text, v.where, v.source + " (" + key + ")");
    out_.values.push_back(std::move(v));
  }
  void warn(std::string_view path, const std::string& text) {
    const toml::node* n = t_.at(path);
    out_.warnings.push_back((n ? t_.where(*n) : t_.file()) + ": " + Toml::name(path) + ": " + text);
  }
  long long positive(std::string_view path, long long fallback, long long lo = 1) {
    const long long v = t_.integer(path, fallback);
    if (v < lo)
      t_.fail(*t_.at(path), path,
              "must be " + std::string(lo < 1 ? "-1 or " : "") + "at least 1, got " + std::to_string(v));
    return v;
  }

  void layout() {
    tensor_ = positive("parallelism.tensor_parallel_degree", 1);
    pipeline_ = positive("parallelism.pipeline_parallel_degree", 1);
    context_ = positive("parallelism.context_parallel_degree", 1);
    set("parallelism.tensor", std::to_string(tensor_), "parallelism.tensor_parallel_degree");
    set("parallelism.pipeline", std::to_string(pipeline_), "parallelism.pipeline_parallel_degree");
    set("parallelism.context", std::to_string(context_), "parallelism.context_parallel_degree");
    set("parallelism.expert", std::to_string(positive("parallelism.expert_parallel_degree", 1)),
        "parallelism.expert_parallel_degree");
    // TP plans shard the norms' activations too (SequenceParallel), so TP in torchtitan is Megatron's TP + SP.
    set("sequence_parallel", tensor_ > 1 ? "true" : "false", "parallelism.tensor_parallel_degree");
    const long long shard = t_.integer("parallelism.data_parallel_shard_degree", -1);
    if (shard == 0 || shard < -1)
      t_.fail(*t_.at("parallelism.data_parallel_shard_degree"), "parallelism.data_parallel_shard_degree",
              "must be -1 (the ranks left) or at least 1");
    const long long replicate = positive("parallelism.data_parallel_replicate_degree", 1);
    // -1 shards over every rank the other degrees leave, which is more than one on any cluster worth a prediction.
    sharded_ = shard != 1;
    set("sharding",
        !sharded_       ? "none"
        : replicate > 1 ? "hsdp"
                        : "fsdp",
        sharded_ && replicate > 1 && t_.at("parallelism.data_parallel_replicate_degree")
            ? "parallelism.data_parallel_replicate_degree"
            : "parallelism.data_parallel_shard_degree");
  }

  void batch_and_run() {
    if (t_.at("training.local_batch_size") && t_.at("training.batch_size"))
      t_.fail(*t_.at("training.batch_size"), "training.batch_size",
              "contradicts [training] local_batch_size: one name of the same batch");
    const std::string_view local_key =
        t_.at("training.batch_size") ? "training.batch_size" : "training.local_batch_size";
    const long long local = positive(local_key, 8);
    const long long global = t_.integer("training.global_batch_size", -1);
    if (pipeline_ > 1) {
      // The local batch goes through the pipeline in micro-batches of pipeline_parallel_microbatch_size.
      const long long micro = positive("parallelism.pipeline_parallel_microbatch_size", 1);
      if (local % micro != 0)
        t_.fail(*t_.at("parallelism.pipeline_parallel_microbatch_size"),
                "parallelism.pipeline_parallel_microbatch_size",
                std::to_string(micro) + " does not divide the local batch " + std::to_string(local));
      set("batch_size", std::to_string(micro), "parallelism.pipeline_parallel_microbatch_size");
      if (global <= 0) set("grad_accum", std::to_string(local / micro), local_key);
    } else {
      set("batch_size", std::to_string(local), local_key);
    }
    if (global > 0) set("global_batch_size", std::to_string(global), "training.global_batch_size");
    set("seq_len", std::to_string(positive("training.seq_len", 2048)), "training.seq_len");
    set("run.steps", std::to_string(positive("training.steps", 10000)), "training.steps");
  }

  void precision() {
    const auto converters = t_.strings("model.converters", {});
    const bool float8 = contains(converters, "float8") || contains(converters, "quantize.linear.float8");
    const bool mx = contains(converters, "mx") || contains(converters, "quantize.linear.mx");
    const std::string dtype = t_.text("training.dtype", "float32");
    const std::string param = t_.text("training.mixed_precision_param", "bfloat16");
    for (const auto& [path, v] :
         {std::pair{"training.dtype", dtype}, std::pair{"training.mixed_precision_param", param}})
      if (v != "bfloat16" && v != "float32")
        t_.fail(*t_.at(path), path, "expected 'bfloat16' or 'float32', got '" + v + "'");
    // mixed_precision_param acts through fully_shard (FSDP or CP) or torch.autocast (plain DDP or one GPU).
    const bool through_fsdp = sharded_ || context_ > 1;
    const bool through_autocast = !through_fsdp && tensor_ == 1 && pipeline_ == 1;
    if (float8 || mx) {
      set("precision", "fp8", "model.converters");
    } else if (dtype == "bfloat16") {
      set("precision", "bf16", "training.dtype");
      set("memory.convention", "pure", "training.dtype");
    } else if (param == "bfloat16" && (through_fsdp || through_autocast)) {
      set("precision", through_fsdp ? "bf16" : "amp_bf16", "training.mixed_precision_param");
    } else {
      if (param == "bfloat16")
        warn("training.mixed_precision_param",
             "takes effect through FSDP or plain DDP only (torchtitan's note); read as fp32");
      set("precision", "fp32", "training.mixed_precision_param");
    }
    if (sharded_ && dtype != "bfloat16")
      set("memory.convention", "fsdp", "parallelism.data_parallel_shard_degree",
          "FSDP2 (torchtitan shards with fully_shard)");
    if (!float8 && !mx) return;
    const std::string_view recipe_key =
        t_.at("float8.recipe_name") ? "float8.recipe_name" : "quantize.linear.float8.recipe_name";
    const std::string recipe = mx ? "tensorwise" : t_.text(recipe_key, "tensorwise");
    if (recipe != "tensorwise" && recipe != "rowwise" && recipe != "rowwise_with_gw_hp")
      t_.fail(*t_.at(recipe_key), recipe_key,
              "expected 'tensorwise', 'rowwise' or 'rowwise_with_gw_hp', got '" + recipe + "'");
    set("fp8_recipe", recipe == "tensorwise" ? "tensorwise" : "rowwise", mx ? "model.converters" : recipe_key,
        "no recipe_name (torchao's default: tensorwise)");
    const std::string_view filter_key =
        t_.at("float8.filter_fqns") ? "float8.filter_fqns" : "quantize.linear.float8.filter_fqns";
    const auto filtered = t_.strings(filter_key, {});
    if (contains(filtered, "output")) set("low_precision.bf16_modules", "lm_head", filter_key);
    if (filtered.size() > (contains(filtered, "output") ? 1u : 0u))
      warn(filter_key, "only 'output' (the LM head) is modelled; the other modules are read as FP8");
  }

  void recompute_and_compile() {
    const bool compile_on = t_.flag("compile.enable", false);
    const auto components = t_.strings("compile.components", {"model", "loss"});
    set("compile", compile_on && contains(components, "model") ? "true" : "false", "compile.enable");
    const std::string mode = t_.text("activation_checkpoint.mode", "selective");
    const std::string option = t_.text("activation_checkpoint.selective_ac_option", "2");
    if (mode != "none" && mode != "selective" && mode != "full" && mode != "memory_budget")
      t_.fail(*t_.at("activation_checkpoint.mode"), "activation_checkpoint.mode",
              "expected 'none', 'selective', 'full' or 'memory_budget', got '" + mode + "'");
    std::string recompute = mode == "memory_budget" ? "selective" : mode;
    if (mode == "memory_budget") warn("activation_checkpoint.mode", "memory_budget is not modelled; read as selective");
    if (mode == "selective" && option == "1")
      recompute = "full";  // every layer checkpointed whole
    else if (mode == "selective" && option != "op")
      warn("activation_checkpoint.selective_ac_option",
           "whole layers recomputed every " + option + " layers are read as selective (per-op) recomputation");
    set("activation_checkpointing", recompute,
        mode == "selective" && t_.at("activation_checkpoint.selective_ac_option")
            ? "activation_checkpoint.selective_ac_option"
            : "activation_checkpoint.mode");
    const bool async = t_.flag("parallelism.enable_async_tensor_parallel", false);
    if (async && !compile_on)
      warn("parallelism.enable_async_tensor_parallel", "has no effect without [compile] enable (torchtitan's note)");
    if (tensor_ > 1)
      set("overlap.tp_comm", async && compile_on ? "true" : "false", "parallelism.enable_async_tensor_parallel");
    if (tensor_ > 1 && !t_.flag("parallelism.disable_loss_parallel", false))
      set("memory.cross_entropy", "loss_parallel", "parallelism.disable_loss_parallel",
          "tensor parallelism (torchtitan's loss parallel)");
    else if (compile_on && contains(components, "loss"))
      set("memory.cross_entropy", "compiled", "compile.components",
          "[compile] enable (the loss is compiled by default)");
  }

  void optimizer_and_model() {
    std::string name = t_.text("optimizer.name", "AdamW");
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    set("optimizer", name, "optimizer.name");
    const std::string impl = t_.text("optimizer.implementation", "fused");
    if (impl != "for-loop" && impl != "foreach" && impl != "fused")
      t_.fail(*t_.at("optimizer.implementation"), "optimizer.implementation",
              "expected 'for-loop', 'foreach' or 'fused', got '" + impl + "'");
    set("fused_optimizer", impl == "for-loop" ? "false" : "true", "optimizer.implementation");
    out_.values.push_back({"codebase", "torchtitan", "a torchtitan job config", t_.file()});
    const std::string model = t_.text("model.name", "llama3"), flavor = t_.text("model.flavor", "debugmodel");
    const std::string_view zoo = launch::titan_zoo_model(model, flavor);
    if (!zoo.empty())
      set("model", std::string(zoo), t_.at("model.flavor") ? "model.flavor" : "model.name");
    else
      out_.model_missing = "[model] name '" + model + "' flavor '" + flavor +
                           "' has no model zoo id (known: " + launch::titan_flavors() + ")";
  }

  void unread() {
    const auto keys = t_.unread_keys();
    if (keys.empty()) return;
    std::string list;
    for (const auto& k : keys) list += (list.empty() ? "" : ", ") + k;
    out_.warnings.push_back(t_.file() + ": " + std::to_string(keys.size()) + " key" + (keys.size() == 1 ? "" : "s") +
                            " not read (no job field for them; docs/launch-import.md lists those read): " + list);
  }

 private:
  const Toml& t_;
  LaunchRead& out_;
  long long tensor_ = 1, pipeline_ = 1, context_ = 1;
  bool sharded_ = true;
};

}  // namespace

LaunchRead read_torchtitan_toml(const std::string& path) {
  const std::string text = read_text_file(path, 1u << 20, "TOML text");
  toml::table table;
  try {
    table = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    throw InputError(path, static_cast<int>(e.source().begin.line), static_cast<int>(e.source().begin.column), "",
                     "TOML syntax error: " + std::string(e.description()));
  }
  LaunchRead out;
  out.file = path;
  const Toml t(table, path);
  TitanRules rules(t, out);
  rules.layout();
  rules.batch_and_run();
  rules.precision();
  rules.recompute_and_compile();
  rules.optimizer_and_model();
  rules.unread();
  return out;
}

}  // namespace ptp::predict
