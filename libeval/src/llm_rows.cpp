#include "ptp/eval/llm_rows.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "ptp/vocab/llm_run_reading.hpp"

#include "ptp/eval/vocabulary.hpp"

namespace ptp::eval {

using vocab::canonical_model_from_notes;
using vocab::LlmRunReading;
using vocab::PublishedLlmRun;
using vocab::read_llm_run;

namespace {
std::string cell(const CsvTable& t, const CsvRow& r, const char* col) { return t.text(r, col); }
double num(const CsvTable& t, const CsvRow& r, const char* col, double fallback = 0) {
  const auto v = t.number(r, col);
  return v ? *v : fallback;
}
bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }
}  // namespace

EvalRow make_eval_row(const CsvTable& t, const CsvRow& row, const std::vector<std::string>& zoo) {
  EvalRow e;
  e.line = row.line;
  e.source_ref = cell(t, row, "source_ref");
  e.framework = cell(t, row, "framework");
  e.task = cell(t, row, "task");
  e.precision = cell(t, row, "precision");
  e.precision_as_published = cell(t, row, "precision_as_published");
  e.gpu = cell(t, row, "gpu");
  const std::string notes = cell(t, row, "notes");
  if (const auto at = notes.find(" container"); at != std::string::npos) {
    const auto start = notes.rfind("NeMo ", at);
    if (start != std::string::npos && at - start < 16) e.release = notes.substr(start, at - start);
  }
  e.model = cell(t, row, "model");
  if (e.model.empty()) e.model = canonical_model_from_notes(notes);
  e.num_gpus = static_cast<int>(num(t, row, "num_gpus"));
  e.tp = static_cast<int>(num(t, row, "tp", 1));
  e.pp = static_cast<int>(num(t, row, "pp", 1));
  e.cp = static_cast<int>(num(t, row, "cp", 1));
  e.vp = std::max(1, static_cast<int>(num(t, row, "vp", 1)));
  e.ep = std::max(1, static_cast<int>(num(t, row, "ep", 1)));
  e.seq_len = num(t, row, "seq_len");
  e.global_batch = num(t, row, "global_batch_size");
  e.measured_step_s = num(t, row, "step_time_s");
  e.recompute = cell(t, row, "activation_checkpointing");
  if (e.recompute.empty()) e.recompute = "none";
  // The rules ptp-train reads the same rows by (ptp/vocab/llm_run_reading.hpp).
  PublishedLlmRun published;
  published.framework = e.framework;
  published.sharding = cell(t, row, "sharding");
  published.gpu = e.gpu;
  published.model = e.model;
  published.precision = e.precision;
  published.precision_as_published = e.precision_as_published;
  published.num_gpus = e.num_gpus;
  published.gpus_per_node = static_cast<int>(num(t, row, "gpus_per_node", 8));
  published.tp = e.tp;
  published.pp = e.pp;
  published.batch = num(t, row, "batch_size");
  published.grad_accum = num(t, row, "grad_accum");
  published.notes = cell(t, row, "notes");
  const LlmRunReading reading = read_llm_run(published);
  e.framework_key = reading.framework_key == "megatron-2021" ? "megatron" : reading.framework_key;
  e.sharding = sharding_name(reading.sharding);
  e.batch = reading.batch;
  const double accum = reading.grad_accum;
  const std::string flags = cell(t, row, "quality_flag");
  if (e.task == "finetune_lora") e.skip_reason = "LoRA fine-tuning (frozen base weights) is not a job-spec option";
  else if (e.measured_step_s <= 0) e.skip_reason = "no step time published or derivable";
  else if (contains(flags, "implausible")) e.skip_reason = "measurement flagged implausible (exceeds peak)";
  else if (e.gpu.empty()) e.skip_reason = "GPU not named";
  else if (std::find(zoo.begin(), zoo.end(), e.model) == zoo.end())
    e.skip_reason = "model not in the zoo (" + (e.model.empty() ? std::string("unnamed") : e.model) + ")";
  else if (e.batch <= 0) e.skip_reason = "micro-batch size not published";
  else if (e.seq_len <= 0) e.skip_reason = "sequence length not published";
  if (!e.skip_reason.empty()) return e;

  const int gpn = reading.gpus_per_node;
  std::ostringstream y;
  auto ll = [](double v) { return static_cast<long long>(std::llround(v)); };
  y << "model: " << e.model << "\nprecision: " << e.precision << "\nbatch_size: " << ll(e.batch)
    << "\nseq_len: " << ll(e.seq_len) << "\n";
  const int dp = e.num_gpus / std::max(1, e.tp * e.pp * e.cp);
  const double per_step = e.batch * dp;
  if (e.global_batch > 0 && per_step > 0 && std::fmod(e.global_batch, per_step) == 0)
    y << "global_batch_size: " << ll(e.global_batch) << "\n";
  else if (accum > 0)
    y << "grad_accum: " << ll(accum) << "\n";
  else if (e.global_batch > 0) {
    e.skip_reason = "global batch is not a multiple of micro-batch x data-parallel ranks";
    return e;
  }
  y << "cluster: {gpu: " << e.gpu << ", num_gpus: " << e.num_gpus << ", gpus_per_node: " << gpn;
  y << "}\n";
  y << "parallelism: {tensor: " << e.tp << ", pipeline: " << e.pp << ", virtual_pipeline: " << e.vp
    << ", context: " << e.cp << ", expert: " << e.ep << "}\n";
  const bool sp = reading.sequence_parallel;
  y << "sequence_parallel: " << (sp ? "true" : "false") << "\n";
  y << "sharding: " << e.sharding << "\nactivation_checkpointing: " << e.recompute << "\n";
  if (!reading.memory_convention.empty()) y << "memory: {convention: " << reading.memory_convention << "}\n";
  if (!reading.attention_kernel.empty()) y << "attention_kernel: " << reading.attention_kernel << "\n";
  if (!reading.fp8_recipe.empty()) y << "fp8_recipe: " << reading.fp8_recipe << "\n";
  if (reading.mtp_depth > 0) y << "mtp_depth: " << reading.mtp_depth << "\n";
  if (reading.bf16_last_layers > 0 || !reading.bf16_modules.empty()) {
    y << "low_precision: {bf16_last_layers: " << reading.bf16_last_layers << ", bf16_modules: [";
    for (std::size_t i = 0; i < reading.bf16_modules.size(); ++i) y << (i ? ", " : "") << reading.bf16_modules[i];
    y << "]}\n";
  }
  e.job_yaml = y.str();
  return e;
}

ErrorStats error_stats(const std::vector<std::pair<double, double>>& pm) {
  ErrorStats s;
  s.n = static_cast<int>(pm.size());
  if (pm.empty()) return s;
  std::vector<double> ape;
  double log_sum = 0;
  for (const auto& [pred, meas] : pm) {
    ape.push_back(std::fabs(pred - meas) / meas);
    log_sum += std::log(pred / meas);
  }
  double sum = 0;
  for (double a : ape) sum += a;
  s.mape = 100 * sum / ape.size();
  std::sort(ape.begin(), ape.end());
  const std::size_t mid = ape.size() / 2;
  s.median_ape = 100 * (ape.size() % 2 ? ape[mid] : 0.5 * (ape[mid - 1] + ape[mid]));
  s.bias = 100 * (std::exp(log_sum / pm.size()) - 1);
  return s;
}

std::string gpu_family(const std::string& id) {
  for (const char* f : {"gb300", "gb200", "b300", "b200", "h200", "h100", "a100"})
    if (id.rfind(f, 0) == 0) return f;
  return id;
}

std::string pairing_key(const EvalRow& r) {
  std::ostringstream k;
  const auto colon = r.source_ref.rfind(':');
  k << r.source_ref.substr(0, colon) << '|' << r.release << '|' << r.task << '|' << r.model << '|' << r.gpu << '|'
    << r.num_gpus << '|' << r.batch << '|' << r.seq_len << '|' << r.global_batch << '|' << r.tp << '|' << r.pp << '|'
    << r.cp << '|' << r.vp << '|' << r.ep << '|' << r.sharding << '|' << r.recompute;
  return k.str();
}

std::string parallelism_style(const EvalRow& r) {
  const bool mp = r.tp > 1 || r.pp > 1 || r.cp > 1 || r.ep > 1;
  const bool sharded = shards_grads(parse_named(sharding_names(), r.sharding, "sharding"));
  if (sharded) return mp ? "FSDP + TP/PP/CP" : "FSDP/ZeRO only";
  return mp ? "Megatron TP/PP/CP (+DP)" : "DP (DDP/ZeRO-1) only";
}

}  // namespace ptp::eval
