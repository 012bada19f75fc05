#include "ptp/predict/job_spec.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "ptp/predict/model_zoo.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/fp8_recipe.hpp"
#include "ptp/vocab/memory_convention.hpp"
#include "ptp/vocab/precision.hpp"
#include "ptp/vocab/suggest.hpp"
#include "job_spec_keys.hpp"

namespace ptp {

namespace {

std::string one_of(const YamlReader& doc, const std::string& key, const std::string& fallback,
                   const std::vector<std::string>& allowed) {
  auto c = doc.optional_child(key);
  if (!c) return fallback;
  const std::string v = c->as_string();
  if (std::find(allowed.begin(), allowed.end(), v) != allowed.end()) return v;
  c->fail("unknown value '" + v + "'" + did_you_mean(v, allowed) + "; expected " + joined_names(allowed));
}

// The same for a value of a project enum, by its name table.
template <class E>
E one_of_named(const YamlReader& doc, const std::string& key, E fallback, const EnumNames<E>& names) {
  return *find_named(names, one_of(doc, key, name_of(names, fallback), names_of(names)));
}

// Scalars are placed at their value (where a wrong value is), mappings and lists at their key. A
// value from --set has no mark and so no position.
void record_positions(const YAML::Node& map, const std::string& prefix, int depth, JobSpec& j) {
  for (const auto& kv : map) {
    if (!kv.first.IsScalar()) continue;
    const std::string name = prefix.empty() ? kv.first.Scalar() : prefix + "." + kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (v.Mark().line < 0) continue;
    const YAML::Mark at = v.IsMap() || v.IsSequence() ? kv.first.Mark() : v.Mark();
    if (at.line >= 0) j.positions[name] = {at.line + 1, at.column + 1};
    if (v.IsMap() && depth < 2) record_positions(v, name, depth + 1, j);
  }
}

// A model path written in a job file is relative to that file, so a job runs from any directory.
// (apply_override has already made one given with --set absolute: it was typed relative to the
// working directory. Marks cannot tell them apart: sweep points parse clones, which have none.)
std::string resolve_model_path(const std::string& model, const std::string& job_file) {
  namespace fs = std::filesystem;
  if (!model_is_path(model)) return model;
  const fs::path p(model);
  const fs::path folder = fs::path(job_file).parent_path();
  if (p.is_absolute() || folder.empty()) return model;
  std::string out = (folder / p).lexically_normal().string();
  // Normalising "jobs/../x" to "x" would turn the path into a zoo id.
  if (!model_is_path(out)) out = "./" + out;
  return out;
}

void parse_memory(const YamlReader& doc, JobSpec& j) {
  auto m = doc.optional_child("memory");
  if (!m) return;
  if (!m->is_map())
    m->fail("expected a mapping {convention, grad_dtype, optimizer_dtype, master_weights, cross_entropy, grad_sync, "
            "frozen_grads, untie_embeddings}");
  m->check_keys({"convention", "grad_dtype", "optimizer_dtype", "master_weights", "cross_entropy", "grad_sync",
                 "frozen_grads", "untie_embeddings"});
  j.memory.cross_entropy = one_of(*m, "cross_entropy", "", cross_entropy_names());
  j.memory.convention = one_of(*m, "convention", "", memory_convention_ids());
  j.memory.grad_dtype = one_of(*m, "grad_dtype", "", {"fp32", "bf16", "fp16"});
  j.memory.optimizer_dtype = one_of(*m, "optimizer_dtype", "", {"fp32", "bf16", "fp16"});
  if (m->has("master_weights")) j.memory.master_weights = m->get_bool("master_weights", true);
  j.memory.grad_sync = one_of(*m, "grad_sync", "", {"micro_batch", "step"});
  j.memory.frozen_grads = m->get_bool("frozen_grads", false);
  j.memory.untie_embeddings = m->get_bool("untie_embeddings", false);
}

void parse_finetune(const YamlReader& doc, JobSpec& j) {
  auto f = doc.optional_child("finetune");
  if (!f) return;
  if (!f->is_map()) f->fail("expected a mapping {method: full | lora | qlora, rank, targets}");
  f->check_keys({"method", "rank", "targets", "double_quant", "quantized_keeps_inputs", "quantized_head",
                "quantized_from_fp16", "dropout", "adapter_modules"});
  auto& ft = j.finetune;
  ft.method = one_of(*f, "method", "full", {"full", "lora", "qlora"});
  if (!ft.lora()) {
    for (const char* k : {"rank", "targets", "double_quant", "quantized_keeps_inputs", "quantized_head",
                          "quantized_from_fp16", "dropout", "adapter_modules"})
      if (f->has(k)) f->child(k).fail("applies to method: lora or qlora only (method: full trains every weight)");
    return;
  }
  for (const char* k : {"double_quant", "quantized_keeps_inputs", "quantized_head", "quantized_from_fp16"})
    if (f->has(k) && !ft.quantized_base()) f->child(k).fail("applies to method: qlora only (a LoRA base is not quantised)");
  ft.double_quant = f->get_bool("double_quant", false);
  ft.quantized_keeps_inputs = f->get_bool("quantized_keeps_inputs", false);
  ft.quantized_head = f->get_bool("quantized_head", false);
  ft.quantized_from_fp16 = f->get_bool("quantized_from_fp16", false);
  if (f->has("dropout")) {
    ft.dropout = f->get_number("dropout", 0, 1);
    if (ft.dropout >= 1) f->child("dropout").fail("is a probability below 1 (1 would drop every adapter input)");
  }
  ft.adapter_modules = one_of(*f, "adapter_modules", "per_projection", {"per_projection", "fused_qkv", "fused"});
  if (!f->has("rank")) f->fail("method: " + ft.method + " needs rank (the adapters' inner dimension, e.g. 16)");
  ft.rank = static_cast<int>(f->get_int("rank", 1, 1'000'000));
  if (auto t = f->optional_child("targets")) {
    if (!t->is_sequence() || t->size() == 0) t->fail("expected a non-empty list of attention | attention_qkv | mlp | all");
    static const std::vector<std::string> allowed{"attention", "attention_qkv", "mlp", "all"};
    for (std::size_t i = 0; i < t->size(); ++i) {
      const auto e = t->element(i);
      const std::string v = e.as_string();
      if (std::find(allowed.begin(), allowed.end(), v) == allowed.end())
        e.fail("unknown target '" + v + "'" + did_you_mean(v, allowed) + "; expected " + joined_names(allowed));
      ft.targets.push_back(v);
    }
  } else {
    ft.targets = {"attention", "mlp"};
  }
}

void parse_low_precision(const YamlReader& doc, JobSpec& j) {
  auto lp = doc.optional_child("low_precision");
  if (!lp) return;
  if (!lp->is_map()) lp->fail("expected a mapping {bf16_first_layers, bf16_last_layers, bf16_modules}");
  lp->check_keys({"bf16_first_layers", "bf16_last_layers", "bf16_modules"});
  auto& s = j.low_precision;
  s.bf16_first_layers = static_cast<int>(lp->get_int("bf16_first_layers", 0, 100'000, 0));
  s.bf16_last_layers = static_cast<int>(lp->get_int("bf16_last_layers", 0, 100'000, 0));
  auto m = lp->optional_child("bf16_modules");
  if (!m) return;
  std::vector<std::string> allowed;
  for (const auto& [name, covers] : low_precision_modules()) allowed.push_back(name);
  if (!m->is_sequence()) m->fail("expected a list of " + joined_names(allowed));
  for (std::size_t i = 0; i < m->size(); ++i) {
    const auto e = m->element(i);
    const std::string v = e.as_string();
    if (std::find(allowed.begin(), allowed.end(), v) == allowed.end())
      e.fail("unknown module '" + v + "'" + did_you_mean(v, allowed) + "; expected " + joined_names(allowed));
    if (std::find(s.bf16_modules.begin(), s.bf16_modules.end(), v) == s.bf16_modules.end()) s.bf16_modules.push_back(v);
  }
}

void parse_sequence_layout(const YamlReader& doc, JobSpec& j) {
  auto& s = j.sequences;
  s.packing = doc.get_bool("packing", false);
  s.attention_mask = one_of(doc, "attention_mask", "causal", {"causal", "document"});
  if (doc.has("avg_seq_len")) {
    if (j.seq_len <= 0) doc.child("avg_seq_len").fail("needs seq_len (the padded or packed length)");
    s.avg_seq_len = doc.get_number("avg_seq_len", 1, 1e7);
    if (s.avg_seq_len > j.seq_len)
      doc.child("avg_seq_len").fail("is " + doc.child("avg_seq_len").as_string() + ", more than seq_len " +
                                    std::to_string(j.seq_len) + " (real tokens cannot exceed the padded length)");
  }
  if (s.attention_mask == "document") {
    if (!s.packing) doc.child("attention_mask").fail("document needs packing: true (documents packed into seq_len)");
    if (s.avg_seq_len <= 0) doc.child("attention_mask").fail("document needs avg_seq_len (the mean document length)");
  }
}
}  // namespace

std::string field_prefix(const JobSpec& job, const std::string& field) {
  const auto it = job.positions.find(field);
  const int line = it == job.positions.end() ? 0 : it->second.first;
  const int column = it == job.positions.end() ? 0 : it->second.second;
  return format_location(job.file, line, column) + ": " + (field.empty() ? "" : field + ": ");
}

void fail_field(const JobSpec& job, const std::string& field, const std::string& why) {
  throw InputError(field_prefix(job, field) + why);
}

bool FinetuneSpec::targets_attention() const {
  return std::find(targets.begin(), targets.end(), "attention") != targets.end() ||
         std::find(targets.begin(), targets.end(), "all") != targets.end();
}
bool FinetuneSpec::adapts_attention_projection(bool output_projection) const {
  return targets_attention() ||
         (!output_projection && std::find(targets.begin(), targets.end(), "attention_qkv") != targets.end());
}
bool FinetuneSpec::targets_mlp() const {
  return std::find(targets.begin(), targets.end(), "mlp") != targets.end() ||
         std::find(targets.begin(), targets.end(), "all") != targets.end();
}

// energy: {pue, grid_gco2_per_kwh, host_w_per_gpu}. PUE below 1 would make the facility use less
// than its IT load; the upper bounds only catch unit mistakes (kW for W, kg for g).
void parse_energy(const YamlReader& doc, JobSpec& j) {
  auto e = doc.optional_child("energy");
  if (!e) return;
  if (!e->is_map()) e->fail("expected a mapping {pue, grid_gco2_per_kwh, host_w_per_gpu}");
  e->check_keys({"pue", "grid_gco2_per_kwh", "host_w_per_gpu"});
  if (e->has("pue")) j.energy.pue = e->get_number("pue", 1, 5);
  if (e->has("grid_gco2_per_kwh")) j.energy.grid_gco2_per_kwh = e->get_number("grid_gco2_per_kwh", 0, 5000);
  if (e->has("host_w_per_gpu")) j.energy.host_w_per_gpu = e->get_number("host_w_per_gpu", 0, 10000);
}

JobSpec parse_job_spec(const YamlReader& doc) {
  if (!doc.is_map()) doc.fail("expected a job spec mapping (model, precision, batch_size, cluster, ...)");
  doc.check_keys(job_spec_keys());
  JobSpec j;
  j.file = doc.file();
  j.model = doc.get_string("model");
  if (j.model.empty()) doc.child("model").fail("must not be empty");
  j.model = resolve_model_path(j.model, doc.file());
  record_positions(doc.node(), "", 0, j);
  j.precision = doc.get_string("precision");
  if (!find_precision_policy(j.precision))
    doc.child("precision").fail("unknown precision '" + j.precision + "'" + did_you_mean(j.precision, precision_ids()) +
                                "; expected " + joined_names(precision_ids()));
  j.framework = one_of(doc, "framework", "pytorch", {"pytorch", "tensorflow", "jax", "mxnet", "paddle"});
  j.codebase = doc.get_string("codebase", "");
  j.attention_kernel = one_of(doc, "attention_kernel", "", attention_kernel_ids());
  j.fp8_recipe = one_of(doc, "fp8_recipe", "", fp8_recipe_ids());
  j.xla = doc.get_bool("xla", false);
  j.memory_format = one_of(doc, "memory_format", "", {"nchw", "nhwc"});
  const bool has_batch = doc.has("batch_size"), has_tokens = doc.has("batch_tokens");
  if (has_batch == has_tokens)
    doc.fail(has_batch ? "give exactly one of batch_size and batch_tokens, not both"
                       : "missing batch_size (samples per GPU) or batch_tokens (tokens per GPU)");
  if (has_batch) j.batch_size = static_cast<double>(doc.get_int("batch_size", 1, 100'000'000));
  if (has_tokens) j.batch_tokens = static_cast<double>(doc.get_int("batch_tokens", 1, 10'000'000'000));
  j.seq_len = static_cast<int>(doc.get_int("seq_len", 1, 10'000'000, 0));
  j.grad_accum = static_cast<int>(doc.get_int("grad_accum", 1, 1'000'000, 1));
  if (doc.has("global_batch_size")) j.global_batch_size = static_cast<double>(doc.get_int("global_batch_size", 1, 1e12));
  j.optimizer = one_of(doc, "optimizer", "adamw", {"sgd", "momentum", "adam", "adamw", "lamb"});

  auto c = doc.child("cluster");
  c.check_keys({"gpu", "num_gpus", "gpus_per_node", "inter_node", "nccl_p2p", "power_limit_w"});
  j.cluster.gpu = c.get_string("gpu");
  j.cluster.num_gpus = static_cast<int>(c.get_int("num_gpus", 1, 1'000'000, 1));
  j.cluster.gpus_per_node = static_cast<int>(c.get_int("gpus_per_node", 1, 1024, 0));
  if (j.cluster.gpus_per_node > j.cluster.num_gpus) c.child("gpus_per_node").fail("cannot exceed num_gpus");
  if (j.cluster.gpus_per_node > 0 && j.cluster.num_gpus % j.cluster.gpus_per_node != 0)
    c.child("num_gpus").fail("must be a multiple of gpus_per_node (" + std::to_string(j.cluster.gpus_per_node) + ")");
  j.cluster.inter_node = c.get_string("inter_node", "");
  j.cluster.nccl_p2p = c.get_bool("nccl_p2p", true);
  if (c.has("power_limit_w")) {  // the GPU's own range is checked when the job is predicted
    j.cluster.power_limit_w = c.get_number("power_limit_w", 1, 5000);
    j.cluster.power_limit_line = c.child("power_limit_w").line();
    j.cluster.power_limit_column = c.child("power_limit_w").column();
  }

  if (auto r = doc.optional_child("run")) {
    r->check_keys({"steps", "epochs", "dataset_size", "tokens"});
    const int kinds = (r->has("steps") ? 1 : 0) + ((r->has("epochs") || r->has("dataset_size")) ? 1 : 0) +
                      (r->has("tokens") ? 1 : 0);
    if (kinds != 1) r->fail("give exactly one of steps | epochs + dataset_size | tokens");
    if (r->has("steps")) j.run.steps = static_cast<double>(r->get_int("steps", 1, 1e15));
    if (r->has("epochs") || r->has("dataset_size")) {
      j.run.epochs = r->get_number("epochs", 1e-6, 1e9);
      j.run.dataset_size = static_cast<double>(r->get_int("dataset_size", 1, 1e15));
    }
    if (r->has("tokens")) j.run.tokens = r->get_number("tokens", 1, 1e18);
  }
  if (auto cost = doc.optional_child("cost")) {
    cost->check_keys({"usd_per_gpu_hour"});
    j.usd_per_gpu_hour = cost->get_number("usd_per_gpu_hour", 0, 1e6);
    j.price_gpu = j.cluster.gpu;
  }
  if (auto p = doc.optional_child("parallelism")) {
    p->check_keys({"tensor", "pipeline", "virtual_pipeline", "context", "expert", "data"});
    j.parallelism.tensor = static_cast<int>(p->get_int("tensor", 1, 1024, 1));
    j.parallelism.pipeline = static_cast<int>(p->get_int("pipeline", 1, 4096, 1));
    j.parallelism.virtual_pipeline = static_cast<int>(p->get_int("virtual_pipeline", 1, 1024, 1));
    j.parallelism.context = static_cast<int>(p->get_int("context", 1, 1024, 1));
    j.parallelism.expert = static_cast<int>(p->get_int("expert", 1, 4096, 1));
    j.parallelism.data = static_cast<int>(p->get_int("data", 1, 1'000'000, 0));
  }
  j.parallelism.sequence_parallel = doc.get_bool("sequence_parallel", false);
  j.sharding = one_of_named(doc, "sharding", Sharding::none, sharding_names());
  j.activation_checkpointing = one_of_named(doc, "activation_checkpointing", Recompute::none, recompute_names());
  parse_finetune(doc, j);
  parse_low_precision(doc, j);
  j.mtp_depth = static_cast<int>(doc.get_int("mtp_depth", 1, 64, 0));
  parse_memory(doc, j);
  parse_energy(doc, j);
  parse_sequence_layout(doc, j);
  return j;
}

std::string file_gpu(const YAML::Node& root) {
  // A missing key reads as an invalid node, which throws on any question but IsDefined.
  if (!root.IsDefined() || !root.IsMap()) return "";
  const YAML::Node cluster = root["cluster"];
  if (!cluster.IsDefined() || !cluster.IsMap()) return "";
  const YAML::Node gpu = cluster["gpu"];
  return gpu.IsDefined() && gpu.IsScalar() ? gpu.Scalar() : std::string();
}

void scope_job_price(JobSpec& job, const std::string& gpu_in_file, const std::vector<Override>& flags,
                     const std::vector<Override>& more_flags) {
  if (!job.usd_per_gpu_hour) {
    job.price_gpu.clear();
    return;
  }
  auto sets_price = [](const Override& ov) { return ov.first == "cost" || ov.first.rfind("cost.", 0) == 0; };
  const bool by_flag = std::any_of(flags.begin(), flags.end(), sets_price) ||
                       std::any_of(more_flags.begin(), more_flags.end(), sets_price);
  job.price_gpu = by_flag ? std::string() : gpu_in_file;
}

JobSpec load_job_spec(const std::string& path, const std::vector<Override>& overrides) {
  auto doc = YamlReader::load_file(path);
  if (!overrides.empty()) {
    YAML::Node root = doc.node();  // edited in place: YAML::Clone would drop every line:column
    if (!root.IsMap()) doc.fail("expected a job spec mapping");
    const std::string gpu_in_file = file_gpu(root);
    for (const auto& ov : overrides) apply_override(root, ov);
    JobSpec job = parse_job_spec(YamlReader(root, path, ""));
    scope_job_price(job, gpu_in_file, overrides);
    return job;
  }
  return parse_job_spec(doc);
}

bool channels_first(const JobSpec& job) {
  return job.memory_format.empty() ? job.framework == "pytorch" : job.memory_format == "nchw";
}

std::string job_spec_to_yaml(const JobSpec& j) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "model" << YAML::Value << j.model;
  out << YAML::Key << "precision" << YAML::Value << j.precision;
  out << YAML::Key << "framework" << YAML::Value << j.framework;
  if (!j.codebase.empty()) out << YAML::Key << "codebase" << YAML::Value << j.codebase;
  if (!j.attention_kernel.empty()) out << YAML::Key << "attention_kernel" << YAML::Value << j.attention_kernel;
  if (!j.fp8_recipe.empty()) out << YAML::Key << "fp8_recipe" << YAML::Value << j.fp8_recipe;
  if (j.xla) out << YAML::Key << "xla" << YAML::Value << true;
  if (!j.memory_format.empty()) out << YAML::Key << "memory_format" << YAML::Value << j.memory_format;
  if (j.batch_tokens > 0)
    out << YAML::Key << "batch_tokens" << YAML::Value << static_cast<long long>(j.batch_tokens);
  else
    out << YAML::Key << "batch_size" << YAML::Value << static_cast<long long>(j.batch_size);
  if (j.seq_len > 0) out << YAML::Key << "seq_len" << YAML::Value << j.seq_len;
  out << YAML::Key << "grad_accum" << YAML::Value << j.grad_accum;
  // A global batch derives grad_accum from the data-parallel degree at resolve time.
  if (j.global_batch_size)
    out << YAML::Key << "global_batch_size" << YAML::Value << static_cast<long long>(*j.global_batch_size);
  out << YAML::Key << "optimizer" << YAML::Value << j.optimizer;
  out << YAML::Key << "cluster" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "gpu" << YAML::Value << j.cluster.gpu;
  out << YAML::Key << "num_gpus" << YAML::Value << j.cluster.num_gpus;
  if (j.cluster.gpus_per_node > 0) out << YAML::Key << "gpus_per_node" << YAML::Value << j.cluster.gpus_per_node;
  if (!j.cluster.inter_node.empty()) out << YAML::Key << "inter_node" << YAML::Value << j.cluster.inter_node;
  if (!j.cluster.nccl_p2p) out << YAML::Key << "nccl_p2p" << YAML::Value << false;
  if (j.cluster.power_limit_w) out << YAML::Key << "power_limit_w" << YAML::Value << *j.cluster.power_limit_w;
  out << YAML::EndMap;
  const auto& p = j.parallelism;
  if (p.tensor > 1 || p.pipeline > 1 || p.context > 1 || p.expert > 1 || p.virtual_pipeline > 1 || p.data > 0) {
    out << YAML::Key << "parallelism" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "tensor" << YAML::Value << p.tensor << YAML::Key << "pipeline" << YAML::Value << p.pipeline;
    out << YAML::Key << "virtual_pipeline" << YAML::Value << p.virtual_pipeline;
    out << YAML::Key << "context" << YAML::Value << p.context << YAML::Key << "expert" << YAML::Value << p.expert;
    if (p.data > 0) out << YAML::Key << "data" << YAML::Value << p.data;  // else derived from num_gpus
    out << YAML::EndMap;
  }
  if (p.sequence_parallel) out << YAML::Key << "sequence_parallel" << YAML::Value << true;
  if (j.sharding != Sharding::none) out << YAML::Key << "sharding" << YAML::Value << sharding_name(j.sharding);
  if (j.activation_checkpointing != Recompute::none)
    out << YAML::Key << "activation_checkpointing" << YAML::Value << recompute_name(j.activation_checkpointing);
  if (j.finetune.lora()) {
    out << YAML::Key << "finetune" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "method" << YAML::Value << j.finetune.method;
    out << YAML::Key << "rank" << YAML::Value << j.finetune.rank;
    out << YAML::Key << "targets" << YAML::Value << YAML::Flow << j.finetune.targets;
    if (j.finetune.double_quant) out << YAML::Key << "double_quant" << YAML::Value << true;
    if (j.finetune.quantized_keeps_inputs) out << YAML::Key << "quantized_keeps_inputs" << YAML::Value << true;
    if (j.finetune.quantized_head) out << YAML::Key << "quantized_head" << YAML::Value << true;
    if (j.finetune.quantized_from_fp16) out << YAML::Key << "quantized_from_fp16" << YAML::Value << true;
    if (j.finetune.dropout > 0) out << YAML::Key << "dropout" << YAML::Value << j.finetune.dropout;
    if (j.finetune.adapter_modules != "per_projection")
      out << YAML::Key << "adapter_modules" << YAML::Value << j.finetune.adapter_modules;
    out << YAML::EndMap;
  }
  if (j.low_precision.any()) {
    const auto& lp = j.low_precision;
    out << YAML::Key << "low_precision" << YAML::Value << YAML::BeginMap;
    if (lp.bf16_first_layers > 0) out << YAML::Key << "bf16_first_layers" << YAML::Value << lp.bf16_first_layers;
    if (lp.bf16_last_layers > 0) out << YAML::Key << "bf16_last_layers" << YAML::Value << lp.bf16_last_layers;
    if (!lp.bf16_modules.empty()) out << YAML::Key << "bf16_modules" << YAML::Value << YAML::Flow << lp.bf16_modules;
    out << YAML::EndMap;
  }
  if (j.mtp_depth > 0) out << YAML::Key << "mtp_depth" << YAML::Value << j.mtp_depth;
  if (j.memory.any()) {
    const auto& m = j.memory;
    out << YAML::Key << "memory" << YAML::Value << YAML::BeginMap;
    if (!m.convention.empty()) out << YAML::Key << "convention" << YAML::Value << m.convention;
    if (!m.grad_dtype.empty()) out << YAML::Key << "grad_dtype" << YAML::Value << m.grad_dtype;
    if (!m.optimizer_dtype.empty()) out << YAML::Key << "optimizer_dtype" << YAML::Value << m.optimizer_dtype;
    if (m.master_weights) out << YAML::Key << "master_weights" << YAML::Value << *m.master_weights;
    if (!m.cross_entropy.empty()) out << YAML::Key << "cross_entropy" << YAML::Value << m.cross_entropy;
    if (!m.grad_sync.empty()) out << YAML::Key << "grad_sync" << YAML::Value << m.grad_sync;
    if (m.frozen_grads) out << YAML::Key << "frozen_grads" << YAML::Value << true;
    if (m.untie_embeddings) out << YAML::Key << "untie_embeddings" << YAML::Value << true;
    out << YAML::EndMap;
  }
  if (j.sequences.avg_seq_len > 0) out << YAML::Key << "avg_seq_len" << YAML::Value << j.sequences.avg_seq_len;
  if (j.sequences.packing) out << YAML::Key << "packing" << YAML::Value << true;
  if (j.sequences.attention_mask != "causal")
    out << YAML::Key << "attention_mask" << YAML::Value << j.sequences.attention_mask;
  if (j.energy.any()) {
    out << YAML::Key << "energy" << YAML::Value << YAML::BeginMap;
    if (j.energy.pue) out << YAML::Key << "pue" << YAML::Value << *j.energy.pue;
    if (j.energy.grid_gco2_per_kwh) out << YAML::Key << "grid_gco2_per_kwh" << YAML::Value << *j.energy.grid_gco2_per_kwh;
    if (j.energy.host_w_per_gpu) out << YAML::Key << "host_w_per_gpu" << YAML::Value << *j.energy.host_w_per_gpu;
    out << YAML::EndMap;
  }
  if (j.usd_per_gpu_hour) {
    out << YAML::Key << "cost" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "usd_per_gpu_hour" << YAML::Value << *j.usd_per_gpu_hour << YAML::EndMap;
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace ptp
