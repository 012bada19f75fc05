// The torchtitan keys ptp reads (one row each), the model zoo ids of torchtitan's flavors, and typed
// access to a parsed job config (torchtitan_toml.hpp).
#include <algorithm>

#include "ptp/vocab/error.hpp"
#include "torchtitan_toml.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::launch {

using toml::node_type;

const std::vector<TitanKey>& titan_key_table() {
  using N = node_type;
  static const std::vector<TitanKey> table = {
      {"model.name", N::string, "with flavor: the model zoo id (model)"},
      {"model.flavor", N::string, "with name: the model zoo id (model)"},
      {"model.converters", N::array, "float8 / quantize.linear.float8 / mx / quantize.linear.mx: precision fp8"},
      {"training.local_batch_size", N::integer,
       "batch_size (with pipeline parallelism: grad_accum = it / the pipeline micro-batch)"},
      {"training.batch_size", N::integer, "batch_size (the name before local_batch_size)"},
      {"training.global_batch_size", N::integer, "global_batch_size (-1: the local batch x data-parallel degree)"},
      {"training.seq_len", N::integer, "seq_len"},
      {"training.steps", N::integer, "run.steps"},
      {"training.mixed_precision_param", N::string, "precision bf16 under FSDP, amp_bf16 under DDP; float32 fp32"},
      {"training.dtype", N::string, "bfloat16: precision bf16, memory.convention pure"},
      {"parallelism.data_parallel_shard_degree", N::integer, "sharding fsdp (-1 or above 1), none (1)"},
      {"parallelism.data_parallel_replicate_degree", N::integer, "above 1 with sharding: sharding hsdp"},
      {"parallelism.tensor_parallel_degree", N::integer, "parallelism.tensor; sequence_parallel above 1"},
      {"parallelism.pipeline_parallel_degree", N::integer, "parallelism.pipeline"},
      {"parallelism.pipeline_parallel_microbatch_size", N::integer, "batch_size under pipeline parallelism"},
      {"parallelism.context_parallel_degree", N::integer, "parallelism.context"},
      {"parallelism.expert_parallel_degree", N::integer, "parallelism.expert"},
      {"parallelism.enable_async_tensor_parallel", N::boolean, "overlap.tp_comm (with [compile] enable)"},
      {"parallelism.disable_loss_parallel", N::boolean,
       "false with tensor parallelism: memory.cross_entropy loss_parallel"},
      {"float8.recipe_name", N::string, "fp8_recipe (rowwise_with_gw_hp rowwise)"},
      {"float8.filter_fqns", N::array, "output: low_precision.bf16_modules lm_head"},
      {"quantize.linear.float8.recipe_name", N::string, "fp8_recipe (rowwise_with_gw_hp rowwise)"},
      {"quantize.linear.float8.filter_fqns", N::array, "output: low_precision.bf16_modules lm_head"},
      {"activation_checkpoint.mode", N::string, "activation_checkpointing"},
      {"activation_checkpoint.selective_ac_option", N::string,
       "op selective; 1 full; another layer interval selective (a warning)"},
      {"compile.enable", N::boolean, "compile (with model in components)"},
      {"compile.components", N::array, "model: compile; loss: memory.cross_entropy compiled"},
      {"optimizer.name", N::string, "optimizer (AdamW adamw, Adam adam)"},
      {"optimizer.implementation", N::string, "fused_optimizer (for-loop false)"},
  };
  return table;
}

namespace {

// Sections and keys that set what the step time does not depend on: not reported as unread.
constexpr std::string_view kInert[] = {
    // whole sections ("x." covers every key under [x])
    "job.", "profiling.", "metrics.", "lr_scheduler.", "checkpoint.", "validation.", "comm.", "memory_estimation.",
    "fault_tolerance.", "experimental.", "debug.", "training.dataloader.",
    // keys
    "model.hf_assets_path", "model.tokenizer_path", "model.print_after_conversion", "optimizer.lr", "optimizer.eps",
    "optimizer.weight_decay", "optimizer.beta1", "optimizer.beta2", "training.dataset", "training.dataset_path",
    "training.max_norm", "training.gc_freq", "training.gc_debug", "training.mixed_precision_reduce", "compile.backend",
    "activation_checkpoint.preserve_rng_state", "activation_checkpoint.early_stop",
};

// torchtitan's [model] name and flavor -> the zoo model with the same sizes (configs/models).
struct TitanFlavor {
  std::string_view name, flavor, zoo_id;
};
constexpr TitanFlavor kFlavors[] = {
    {"llama3", "8B", "llama3-8b"},          {"llama3", "8B_flex", "llama3-8b"},
    {"llama3", "8B_varlen", "llama3-8b"},   {"llama3", "70B", "llama3-70b"},
    {"llama3", "405B", "llama3.1-405b"},    {"qwen3", "8B", "qwen3-8b"},
    {"qwen3", "30B-A3B", "qwen3-30b-a3b"},  {"qwen3", "235B-A22B", "qwen3-235b-a22b"},
    {"deepseek_v3", "671B", "deepseek-v3"}, {"llama4", "17bx16e", "llama4-scout"},
    {"gpt_oss", "20b", "gpt-oss-20b"},      {"gpt_oss", "120b", "gpt-oss-120b"},
};

const char* type_name(node_type t) {
  switch (t) {
    case node_type::table:
      return "a table";
    case node_type::array:
      return "an array";
    case node_type::string:
      return "a string";
    case node_type::integer:
      return "an integer";
    case node_type::floating_point:
      return "a floating-point number";
    case node_type::boolean:
      return "true or false";
    case node_type::date:
      return "a date";
    case node_type::time:
      return "a time";
    case node_type::date_time:
      return "a date-time";
    case node_type::none:
      break;
  }
  return "nothing";
}

bool is_read(const std::string& path) {
  return std::any_of(titan_key_table().begin(), titan_key_table().end(),
                     [&](const TitanKey& k) { return k.path == path; });
}

bool is_inert(const std::string& path) {
  return std::any_of(std::begin(kInert), std::end(kInert),
                     [&](std::string_view p) { return p.back() == '.' ? path.rfind(p, 0) == 0 : path == p; });
}

void collect_unread(const toml::table& t, const std::string& prefix, std::vector<std::string>& out) {
  for (const auto& [key, node] : t) {
    const std::string path = prefix + std::string(key.str());
    if (const auto* sub = node.as_table())
      collect_unread(*sub, path + ".", out);
    else if (!is_read(path) && !is_inert(path))
      out.push_back(path);
  }
}

}  // namespace

std::string_view titan_zoo_model(std::string_view name, std::string_view flavor) {
  for (const auto& f : kFlavors)
    if (f.name == name && f.flavor == flavor) return f.zoo_id;
  return {};
}

std::string titan_flavors() {
  std::string out;
  for (const auto& f : kFlavors) out += (out.empty() ? "" : ", ") + std::string(f.name) + " " + std::string(f.flavor);
  return out;
}

const toml::node* Toml::at(std::string_view path) const {
  const toml::node* n = toml::at_path(t_, path).node();
  if (!n) return nullptr;
  const auto row = std::find_if(titan_key_table().begin(), titan_key_table().end(),
                                [&](const TitanKey& k) { return k.path == path; });
  if (row == titan_key_table().end()) return n;
  if (n->type() != row->type)
    fail(*n, path, std::string("expected ") + type_name(row->type) + ", got " + type_name(n->type()));
  if (row->type == node_type::array)
    for (const auto& e : *n->as_array())
      if (!e.is_string()) fail(e, path, std::string("expected an array of strings, got ") + type_name(e.type()));
  return n;
}

long long Toml::integer(std::string_view path, long long fallback) const {
  const auto* n = at(path);
  return n ? n->as_integer()->get() : fallback;
}

bool Toml::flag(std::string_view path, bool fallback) const {
  const auto* n = at(path);
  return n ? n->as_boolean()->get() : fallback;
}

std::string Toml::text(std::string_view path, const std::string& fallback) const {
  const auto* n = at(path);
  return n ? n->as_string()->get() : fallback;
}

std::vector<std::string> Toml::strings(std::string_view path, std::vector<std::string> fallback) const {
  const auto* n = at(path);
  if (!n) return fallback;
  std::vector<std::string> out;
  for (const auto& e : *n->as_array()) out.push_back(e.as_string()->get());
  return out;
}

std::string Toml::name(std::string_view path) {
  const auto dot = path.rfind('.');
  return "[" + std::string(path.substr(0, dot)) + "] " + std::string(path.substr(dot + 1));
}

std::string Toml::where(const toml::node& n) const {
  return format_location(file_, static_cast<int>(n.source().begin.line), static_cast<int>(n.source().begin.column));
}

void Toml::fail(const toml::node& n, std::string_view path, const std::string& problem) const {
  throw InputError(file_, static_cast<int>(n.source().begin.line), static_cast<int>(n.source().begin.column),
                   name(path), problem);
}

std::vector<std::string> Toml::unread_keys() const {
  std::vector<std::string> out;
  collect_unread(t_, "", out);
  return out;
}

std::string toml_value_text(const toml::node& n) {
  if (const auto* s = n.as_string()) return "'" + s->get() + "'";
  if (const auto* i = n.as_integer()) return std::to_string(i->get());
  if (const auto* b = n.as_boolean()) return b->get() ? "true" : "false";
  return type_name(n.type());
}

}  // namespace ptp::predict::launch
