#include "search_fields.hpp"

#include <cstdio>
#include <stdexcept>

namespace ptp {

namespace {
std::string num(long long v) { return std::to_string(v); }
long long as_ll(const std::string& s) { return std::stoll(s); }
}  // namespace

const std::vector<SearchField>& search_fields() {
  // Captureless lambdas as plain function pointers: one line per field.
  static const std::vector<SearchField> fields = {
      {"cluster.gpu", "GPU", [](const JobSpec& j) { return j.cluster.gpu; },
       [](JobSpec& j, const std::string& v) { j.cluster.gpu = v; }, 4},
      {"cluster.num_gpus", "GPUs", [](const JobSpec& j) { return num(j.cluster.num_gpus); },
       [](JobSpec& j, const std::string& v) { j.cluster.num_gpus = static_cast<int>(as_ll(v)); }, 4},
      {"cluster.gpus_per_node", "per node", [](const JobSpec& j) { return num(j.cluster.gpus_per_node); },
       [](JobSpec& j, const std::string& v) { j.cluster.gpus_per_node = static_cast<int>(as_ll(v)); }, 4},
      {"cluster.inter_node", "fabric", [](const JobSpec& j) { return j.cluster.inter_node; },
       [](JobSpec& j, const std::string& v) { j.cluster.inter_node = v; }, 4},
      // A power cap outside the GPU's range makes that configuration invalid when it is predicted.
      {"cluster.power_limit_w", "",
       [](const JobSpec& j) {
         if (!j.cluster.power_limit_w) return std::string();
         char text[32];
         std::snprintf(text, sizeof text, "%.10g", *j.cluster.power_limit_w);
         return std::string(text);
       },
       [](JobSpec& j, const std::string& v) {
         if (v.empty()) j.cluster.power_limit_w.reset();
         else j.cluster.power_limit_w = std::stod(v);
       }, 4},
      {"precision", "", [](const JobSpec& j) { return j.precision; },
       [](JobSpec& j, const std::string& v) { j.precision = v; }, 4},
      {"optimizer", "", [](const JobSpec& j) { return j.optimizer; },
       [](JobSpec& j, const std::string& v) { j.optimizer = v; }, 4},
      {"seq_len", "", [](const JobSpec& j) { return num(j.seq_len); },
       [](JobSpec& j, const std::string& v) { j.seq_len = static_cast<int>(as_ll(v)); }, 0},
      {"parallelism.tensor", "TP", [](const JobSpec& j) { return num(j.parallelism.tensor); },
       [](JobSpec& j, const std::string& v) { j.parallelism.tensor = static_cast<int>(as_ll(v)); }, 1},
      {"parallelism.pipeline", "PP", [](const JobSpec& j) { return num(j.parallelism.pipeline); },
       [](JobSpec& j, const std::string& v) { j.parallelism.pipeline = static_cast<int>(as_ll(v)); }, 2},
      {"parallelism.virtual_pipeline", "VP", [](const JobSpec& j) { return num(j.parallelism.virtual_pipeline); },
       [](JobSpec& j, const std::string& v) { j.parallelism.virtual_pipeline = static_cast<int>(as_ll(v)); }, 3},
      {"parallelism.context", "CP", [](const JobSpec& j) { return num(j.parallelism.context); },
       [](JobSpec& j, const std::string& v) { j.parallelism.context = static_cast<int>(as_ll(v)); }, 1},
      {"parallelism.expert", "EP", [](const JobSpec& j) { return num(j.parallelism.expert); },
       [](JobSpec& j, const std::string& v) { j.parallelism.expert = static_cast<int>(as_ll(v)); }, 1},
      {"sequence_parallel", "SP",
       [](const JobSpec& j) { return std::string(j.parallelism.sequence_parallel ? "true" : "false"); },
       [](JobSpec& j, const std::string& v) { j.parallelism.sequence_parallel = v == "true"; }, 1},
      {"sharding", "", [](const JobSpec& j) { return std::string(sharding_name(j.sharding)); },
       [](JobSpec& j, const std::string& v) { j.sharding = parse_named(sharding_names(), v, "sharding"); }, 4},
      {"activation_checkpointing", "recompute",
       [](const JobSpec& j) { return std::string(recompute_name(j.activation_checkpointing)); },
       [](JobSpec& j, const std::string& v) {
         j.activation_checkpointing = parse_named(recompute_names(), v, "activation_checkpointing");
       }, 4},
      {"global_batch_size", "global batch",
       [](const JobSpec& j) { return j.global_batch_size ? num(static_cast<long long>(*j.global_batch_size)) : std::string(); },
       [](JobSpec& j, const std::string& v) { j.global_batch_size = static_cast<double>(as_ll(v)); }, 4},
      {"grad_accum", "", [](const JobSpec& j) { return num(j.grad_accum); },
       [](JobSpec& j, const std::string& v) { j.grad_accum = static_cast<int>(as_ll(v)); }, 4},
      // The micro-batch under either spelling; the job spec accepts exactly one of them.
      {"batch_size", "micro-batch", [](const JobSpec& j) { return num(static_cast<long long>(j.batch_size)); },
       [](JobSpec& j, const std::string& v) { j.batch_size = static_cast<double>(as_ll(v)); j.batch_tokens = 0; }, 0},
      {"batch_tokens", "micro-tokens", [](const JobSpec& j) { return num(static_cast<long long>(j.batch_tokens)); },
       [](JobSpec& j, const std::string& v) { j.batch_tokens = static_cast<double>(as_ll(v)); j.batch_size = 0; }, 0},
  };
  return fields;
}

const SearchField& search_field(const std::string& key) {
  for (const auto& f : search_fields())
    if (f.key == key) return f;
  throw std::logic_error("search_field: unknown key " + key);
}

}  // namespace ptp
