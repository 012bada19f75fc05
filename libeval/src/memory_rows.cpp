#include "memory_rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "ptp/vocab/llm_run_reading.hpp"

#include "ptp/eval/vocabulary.hpp"

namespace ptp::eval::detail {

using vocab::LlmRunReading;
using vocab::PublishedLlmRun;
using vocab::read_llm_run;

namespace {

bool positive_int(const std::string& s, long& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || !(v >= 1) || v != std::floor(v)) return false;
  out = static_cast<long>(v);
  return true;
}

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

bool contains(const std::string& s, const char* p) { return s.find(p) != std::string::npos; }

}  // namespace

void make_job(const CsvTable& t, const CsvRow& r, const std::vector<std::string>& zoo, const std::string& stand_in,
              Row& e, bool ignore_outcome) {
  auto c = [&](const char* col) { return t.text(r, col); };
  e.id = c("row_id");
  e.origin = c("origin");
  e.kind = c("memory_kind");
  e.finetune = c("finetune");
  e.model = c("model");
  e.gpu = c("gpu");
  e.precision = c("precision");
  e.flags = c("quality_flag");
  e.clean = e.flags.empty();
  const std::string offload = c("cpu_offload");
  long mb = 0, seq = 0, gpus = 0, gpn = 0, rank = 0;
  if (c("outcome") != "ok" && !ignore_outcome) e.skip = "OOM row (no measured value; checked separately below)";
  else if (e.model.empty() || std::find(zoo.begin(), zoo.end(), e.model) == zoo.end())
    e.skip = "model not in the zoo";
  else if (e.precision.empty()) e.skip = "precision not stated";
  else if (e.finetune.empty()) e.skip = "fine-tuning method not expressible (other PEFT methods, adapters, LISA, DoRA)";
  else if (c("optimizer").empty())
    e.skip = "optimizer state not expressible or not stated (8-/4-bit, paged, in-backward, Adafactor)";
  else if (starts_with(offload, "yes") || starts_with(offload, "optimizer") || starts_with(offload, "activations"))
    e.skip = "CPU offload (not modelled)";
  else if (c("activation_checkpointing").empty()) e.skip = "activation checkpointing not stated";
  else if (!positive_int(c("micro_batch"), mb) || !positive_int(c("seq_len"), seq))
    e.skip = "micro-batch or seq_len not published as a number";
  else if (!positive_int(c("num_gpus"), gpus)) e.skip = "GPU count not published";
  else if ((e.finetune == "lora" || e.finetune == "qlora") && !positive_int(c("lora_rank"), rank))
    e.skip = "LoRA rank not published";
  else if (e.gpu.empty()) {
    if (stand_in.empty()) e.skip = "GPU not named or not in the catalog";
    else e.stand_in = e.gpu = stand_in;
  }
  if (!e.skip.empty()) return;
  e.measured_gib = std::strtod(c("measured_peak_gib").c_str(), nullptr);
  if (!positive_int(c("gpus_per_node"), gpn)) gpn = std::min(gpus, 8L);
  auto par = [&](const char* col) {
    long v = 1;
    return positive_int(c(col), v) ? v : 1L;
  };
  const long tp = par("tp"), pp = par("pp"), cp = par("cp"), ep = par("ep");
  // Megatron (ms-swift mcore rows say so) and torchtitan's TP plan shard the norms/dropout regions
  // over the TP ranks (sequence parallel).
  const bool sp = tp > 1 && (contains(c("fused_or_compile"), "sequence parallel") || e.origin == "torchtitan");
  // torchtitan's local batch under a pipeline is split as its throughput rows are (llm_run_reading).
  double grad_accum = 0;
  if (e.origin == "torchtitan") {
    PublishedLlmRun published;
    published.framework = "torchtitan";
    published.pp = static_cast<int>(pp);
    published.batch = static_cast<double>(mb);
    const LlmRunReading reading = read_llm_run(published);
    mb = static_cast<long>(reading.batch);
    grad_accum = reading.grad_accum;
  }
  std::ostringstream y;
  y << "model: " << e.model << "\nprecision: " << e.precision << "\nbatch_size: " << mb << "\nseq_len: " << seq
    << "\noptimizer: " << c("optimizer") << "\ncluster: {gpu: " << e.gpu << ", num_gpus: " << gpus
    << ", gpus_per_node: " << gpn << "}\nparallelism: {tensor: " << tp << ", pipeline: " << pp
    << ", context: " << cp << ", expert: " << ep << "}\nsequence_parallel: " << (sp ? "true" : "false")
    << "\nsharding: " << c("sharding") << "\nactivation_checkpointing: " << c("activation_checkpointing") << "\n";
  // A stack's accumulation as the dataset states it (scripts/dataset_build/memory.py: litgpt's
  // published global batch).
  if (long stated = 0; positive_int(c("grad_accum"), stated)) grad_accum = static_cast<double>(stated);
  if (grad_accum > 1) y << "grad_accum: " << static_cast<long>(grad_accum) << "\n";
  if (e.finetune != "full") {
    y << "finetune: {method: " << e.finetune << ", rank: " << rank;
    if (!c("lora_targets").empty()) y << ", targets: [" << c("lora_targets") << "]";
    if (c("double_quant") == "true") y << ", double_quant: true";
    if (c("quantized_keeps_inputs") == "true") y << ", quantized_keeps_inputs: true";
    if (c("quantized_head") == "true") y << ", quantized_head: true";
    if (c("quantized_from_fp16") == "true") y << ", quantized_from_fp16: true";
    if (!c("lora_dropout").empty()) y << ", dropout: " << c("lora_dropout");
    if (!c("adapter_modules").empty()) y << ", adapter_modules: " << c("adapter_modules");
    y << "}\n";
  }
  std::vector<std::string> memory;
  if (!c("memory_convention").empty()) memory.push_back("convention: " + c("memory_convention"));
  if (!c("cross_entropy").empty()) memory.push_back("cross_entropy: " + c("cross_entropy"));
  if (!c("grad_sync").empty()) memory.push_back("grad_sync: " + c("grad_sync"));
  if (c("frozen_grads") == "true") memory.push_back("frozen_grads: true");
  if (c("untie_embeddings") == "true") memory.push_back("untie_embeddings: true");
  if (!memory.empty()) {
    y << "memory: {";
    for (std::size_t i = 0; i < memory.size(); ++i) y << (i ? ", " : "") << memory[i];
    y << "}\n";
  }
  e.job_yaml = y.str();
}

}  // namespace ptp::eval::detail
