#include "ptp/vocab/llm_run_reading.hpp"

#include <algorithm>

namespace ptp::vocab {

namespace {
bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }
}  // namespace

std::string llm_framework_key(const std::string& f) {
  if (f == "Megatron-LM") return "megatron-2021";
  if ((contains(f, "Megatron") || contains(f, "NeMo")) && !contains(f, "AutoModel")) return "megatron";
  if (contains(f, "llm-foundry")) return "llm-foundry";
  if (contains(f, "torchtitan")) return "torchtitan";
  if (contains(f, "AutoModel")) return "automodel";
  if (contains(f, "llm.c")) return "llm.c";
  return "other";
}

LlmRunReading read_llm_run(const PublishedLlmRun& row) {
  LlmRunReading r;
  r.framework_key = llm_framework_key(row.framework);
  const bool megatron = r.framework_key == "megatron";
  if (!row.sharding.empty()) r.sharding = parse_named(sharding_names(), row.sharding, "sharding");
  if (row.sharding.empty() || (megatron && r.sharding == Sharding::none))
    r.sharding = r.framework_key == "megatron-2021" ? Sharding::none : megatron ? Sharding::zero1 : Sharding::fsdp;
  r.sequence_parallel = row.tp > 1 && (megatron || r.framework_key == "torchtitan");
  if (r.framework_key == "torchtitan") r.memory_convention = "fsdp";
  const bool sdpa = r.framework_key == "llm-foundry" || r.framework_key == "torchtitan" ||
                    (r.framework_key == "automodel" && (contains(row.notes, "TorchSDPA") || contains(row.notes, "FlexAttn")));
  if (sdpa) r.attention_kernel = "flash2";
  else if (megatron || r.framework_key == "megatron-2021" || r.framework_key == "automodel") r.attention_kernel = "cudnn";
  if (contains(row.precision_as_published, "rowwise")) r.fp8_recipe = "rowwise";
  r.batch = row.batch;
  r.grad_accum = row.grad_accum;
  if (r.framework_key == "torchtitan" && row.pp > 1 && row.batch > 1) {
    r.grad_accum = row.batch * std::max(1.0, row.grad_accum);
    r.batch = 1;
  }
  int gpn = row.gpus_per_node > 0 ? row.gpus_per_node : 8;
  if (row.gpu == "gb200" || row.gpu == "gb300")
    gpn = row.num_gpus <= 64 ? row.num_gpus : (row.num_gpus % 64 == 0 ? 64 : 4);
  r.gpus_per_node = std::max(1, std::min(gpn, row.num_gpus));
  if (megatron && row.model == "nemotron-3-super") {
    r.mtp_depth = 2;
    r.bf16_modules = {"mtp"};
    if (row.precision == "fp4") {
      r.bf16_last_layers = 14;
      r.bf16_modules.insert(r.bf16_modules.end(), {"attention", "moe_latent"});
    }
  }
  if (r.framework_key == "torchtitan") {
    if (contains(row.notes, "torch.compile=no")) r.compile = false;
    else if (contains(row.notes, "torch.compile")) r.compile = true;
    if (contains(row.notes, "AsyncTP") || contains(row.notes, "Async TP")) r.tp_comm_overlap = true;
    else if (contains(row.notes, "vanilla TP")) r.tp_comm_overlap = false;
  }
  return r;
}

std::string canonical_model_from_notes(const std::string& notes) {
  const std::string tag = "source canonical id: ";
  const auto at = notes.find(tag);
  if (at == std::string::npos) return "";
  const auto start = at + tag.size();
  const auto end = notes.find_first_of(" ;", start);
  return notes.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace ptp::vocab
