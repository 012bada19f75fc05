#include "ptp/train/training_data.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "ptp/predict/learned/sha256.hpp"
#include "ptp/vocab/llm_run_reading.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/dataset_schema.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/point_status.hpp"
#include "ptp/vocab/precision.hpp"
#include "ptp/vocab/suggest.hpp"

#include "ptp/train/vocabulary.hpp"

namespace ptp::train {

using vocab::canonical_model_from_notes;
using vocab::LlmRunReading;
using vocab::PublishedLlmRun;
using vocab::read_llm_run;

Framework framework_id(const std::string& published) {
  const std::string f = to_lower(published);
  for (const auto& e : framework_names())
    if (e.value != Framework::pytorch && f.find(e.name) != std::string::npos) return e.value;
  return Framework::pytorch;
}

namespace {
// The version after "container " or before " container" in the notes ("container 20.06-py3",
// "NeMo 26.04 container"), or "benchmark_version v1"'s value. Container versions start with a digit
// ("the container runs TF32" names none).
std::string note_value(const std::string& notes, const std::string& before, const std::string& after,
                       bool digit_first) {
  auto is_token = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_'; };
  auto accept = [&](std::size_t i, std::size_t j) {
    return j > i && (!digit_first || std::isdigit(static_cast<unsigned char>(notes[i])));
  };
  if (auto at = notes.find(before); !before.empty() && at != std::string::npos) {
    std::size_t i = at + before.size(), j = i;
    while (j < notes.size() && is_token(notes[j])) ++j;
    if (accept(i, j)) return notes.substr(i, j - i);
  }
  if (auto at = notes.find(after); !after.empty() && at != std::string::npos) {
    std::size_t j = at, i = at;
    while (i > 0 && is_token(notes[i - 1])) --i;
    if (accept(i, j)) return notes.substr(i, j - i);
  }
  return "";
}
}  // namespace

std::string stack_key(const std::string& source, const std::string& source_ref, const std::string& framework,
                      const std::string& notes, const std::string& model, const std::string& task) {
  // The file a row was published in, without its line ("repo@commit:path:123" -> "repo@commit:path").
  std::string file = source_ref;
  if (auto colon = file.rfind(':'); colon != std::string::npos && colon + 1 < file.size() &&
                                    std::all_of(file.begin() + static_cast<long>(colon) + 1, file.end(),
                                                [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    file.erase(colon);
  // Lambda publishes one result file per system and model; its stack is the benchmark version.
  std::string version = note_value(notes, "benchmark_version ", "", false);
  if (!version.empty()) file = "benchmark " + version;
  std::string container = note_value(notes, "container ", " container", true);
  return source + " | " + file + " | " + framework + " | " + container + " | " + model + " | " + task;
}

namespace {

std::set<std::string> flags_of(const std::string& text) {
  std::set<std::string> out;
  std::stringstream ss(text);
  for (std::string f; std::getline(ss, f, ';');)
    if (!f.empty()) out.insert(f);
  return out;
}

// Published rows the source itself marks as broken or not comparable. Everything else is kept:
// `moe_or_hybrid` rows train like the rest when their model is in the zoo, whose MoE entries describe
// the experts, routing (top-k) and shared experts, and whose hybrid entries (nemotron-3-nano,
// nemotron-3-super) their Mamba-2 / attention / MoE layer pattern. Hybrid models the zoo lacks
// (Nemotron 3 Ultra, 3.5 Lightning: no public architecture config found) drop out as unknown models.
const std::vector<std::pair<std::string, std::string>> kExcludedFlags = {
    {"suspect_amp_fp32_ratio", "AMP/FP32 ratio outside 0.8..6: the source's run was probably broken"},
    {"suspect_superlinear_scaling", "more than 1.15x linear scaling: inconsistent with its own 8-GPU row"},
    {"implausible_exceeds_peak", "throughput above the GPU's dense peak"},
    {"approximate", "approximate value (\"~300ms/iter\" comments)"},
    {"proxy_reduced_layers", "proxy model with fewer layers than named"},
    {"model_unnamed", "model not named"},
    {"batch_typo_suspected", "batch size probably a typo in the source"},
    {"unit_ambiguous", "the source says the throughput unit is ambiguous (tokens or sequences)"},
    {"batch_inconsistent", "the batch the step time is derived from contradicts a batch the source states"},
};

// The activation layout a published run used, from its benchmark's public configuration (the
// `runs` table has no column for it). PyTorch is channels-first unless the script converts:
// - DLE's ConvNets (ResNet-50, ResNeXt-101, SE-ResNeXt-101) pass `--memory-format nhwc` for AMP
//   only (PyTorch/Classification/ConvNets/configs.yml and the README's benchmark commands);
// - DLE's SSD300 defaults `--data-layout` to channels_last (PyTorch/Detection/SSD/main.py);
// - Lambda's scripts (pytorch/scripts/config_v0, config_v1) pass no layout flag, so their ResNet-50
//   runs of the same DLE code are channels-first; so is Mask R-CNN (maskrcnn-benchmark). Their SSD
//   runs use Lambda's copy of DLE's SSD, whose layout default is not recorded: channels-first here.
// Other frameworks' GPU kernels are channels-last by default, which an empty value means.
std::optional<MemoryFormat> published_memory_format(const std::string& source, const JobSpec& j) {
  if (j.framework != Framework::pytorch) return std::nullopt;
  const PrecisionPolicy* policy = find_precision_policy(j.precision);
  const bool amp = policy && policy->autocast;
  const bool dle_convnets = j.model == "resnet50" || j.model == "resnext101-32x4d" || j.model == "se-resnext101-32x4d";
  if (source == "dle" && ((dle_convnets && amp) || j.model == "ssd300")) return MemoryFormat::nhwc;
  return MemoryFormat::nchw;
}

// Counts (GPUs, ranks, lengths, degrees) become ints: a value no int holds (1e12 GPUs, seq_len 1e300)
// is an input error, not a float-to-int overflow (undefined behaviour).
int count_cell(const CsvTable& csv, const CsvRow& row, const std::string& col, double v) {
  if (!(std::fabs(v) <= 1e9))
    throw InputError(csv.file(), row.line, static_cast<int>(csv.column(col) + 1), col,
                     "expected a count below 1e9, got '" + csv.text(row, col) + "'");
  return static_cast<int>(v);
}

// A table is one CSV file or a folder of CSV files with the same columns (ptp-profile adds files).
std::vector<std::string> table_files(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return {path};
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(path, ec))
    if (e.path().extension() == ".csv") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw InputError(path, 0, 0, "", "no .csv files in the folder");
  return files;
}

template <typename T, typename RowFn>
Table<T> load_table(const std::string& path, const TableSchema& schema, RowFn&& row_fn) {
  Table<T> t;
  t.path = path;
  std::string hashes;
  for (const auto& file : table_files(path)) {
    const CsvTable csv = CsvTable::read_file(file);
    csv.require_columns(schema.required_names());
    hashes += sha256_file(file);
    t.total_rows += static_cast<int>(csv.rows().size());
    for (const auto& row : csv.rows()) row_fn(csv, row, t);
  }
  t.sha256 = sha256_hex(hashes);
  if (t.total_rows == 0) throw InputError(path, 0, 0, "", "no data rows");
  return t;
}

// Per-token work grows with the sequence (attention), so a row whose tokens/s per GPU beat a
// shorter-sequence row of the same setup (source, model, task, framework, GPU, precision, layout,
// sharding, recomputation) by more than 1.15x cannot be computing the padded sequences its seq_len
// states: its job-spec view would misdescribe the work. The shorter row must carry at least as many
// tokens per micro-batch (bigger micro-batches run more efficiently); at that, any GPU count compares,
// since adding data-parallel GPUs never raises the per-GPU rate. DLE's PyTorch (21.11+) and Paddle
// BERT phase 2 read LDDL data binned by length (bin size 64; each batch padded only to its bin,
// scripts/run_pretraining.sh): their seq-512 rows run 1.3-1.5x the per-GPU tokens/s of their own
// phase-1 rows, and how short the bins are on average is not published.
void exclude_sequences_faster_than_shorter_ones(Table<RunRecord>& t) {
  auto setup = [](const RunRecord& r) {
    const auto& j = r.job;
    const auto& p = j.parallelism;
    return r.source + '|' + j.model + '|' + r.task + '|' + name_of(framework_names(), j.framework) + '|' + j.cluster.gpu + '|' + j.precision +
           '|' + std::to_string(p.tensor) + '|' + std::to_string(p.pipeline) + '|' + std::to_string(p.context) +
           '|' + std::to_string(p.expert) + '|' + sharding_name(j.sharding) + '|' +
           recompute_name(j.activation_checkpointing);
  };
  auto tokens_per_gpu_s = [](const RunRecord& r) {
    const auto& j = r.job;
    return j.batch_size * j.grad_accum * j.seq_len / r.step_time_s;
  };
  auto tokens_per_microbatch = [](const RunRecord& r) { return r.job.batch_size * r.job.seq_len; };
  std::map<std::string, std::vector<std::size_t>> by_setup;
  for (std::size_t i = 0; i < t.rows.size(); ++i)
    if (t.rows[i].job.seq_len > 0 && t.rows[i].job.batch_size > 0) by_setup[setup(t.rows[i])].push_back(i);
  std::vector<bool> drop(t.rows.size(), false);
  for (const auto& [key, rows] : by_setup)
    for (std::size_t a : rows)
      for (std::size_t b : rows)
        if (t.rows[b].job.seq_len < t.rows[a].job.seq_len &&
            tokens_per_microbatch(t.rows[b]) >= tokens_per_microbatch(t.rows[a]) &&
            tokens_per_gpu_s(t.rows[a]) > 1.15 * tokens_per_gpu_s(t.rows[b]))
          drop[a] = true;
  std::vector<RunRecord> kept;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (drop[i])
      ++t.excluded["more tokens/s per GPU than a shorter-sequence run of the same setup: length-binned, not "
                   "padded to its seq_len"];
    else
      kept.push_back(std::move(t.rows[i]));
  }
  t.rows = std::move(kept);
}

// The published LLM tables leave out what their framework's recipes set (llm_run_reading.hpp): the
// same reading tests/llm's evaluation uses, so a run is one job everywhere.
void read_as_llm_framework_ran_it(const CsvTable& csv, const CsvRow& row, JobSpec& j) {
  PublishedLlmRun published;
  published.framework = csv.text(row, "framework");
  published.sharding = csv.text(row, "sharding");
  published.gpu = j.cluster.gpu;
  published.model = j.model;
  published.precision = j.precision;
  published.precision_as_published = csv.text(row, "precision_as_published");
  published.num_gpus = j.cluster.num_gpus;
  published.gpus_per_node = j.cluster.gpus_per_node;
  published.tp = j.parallelism.tensor;
  published.pp = j.parallelism.pipeline;
  published.batch = j.batch_size;
  published.grad_accum = csv.number(row, "grad_accum").value_or(0);
  published.notes = csv.text(row, "notes");
  const LlmRunReading reading = read_llm_run(published);
  j.sharding = reading.sharding;
  j.parallelism.sequence_parallel = reading.sequence_parallel;
  j.memory.convention = reading.memory_convention;
  j.attention_kernel = reading.attention_kernel;
  j.fp8_recipe = reading.fp8_recipe;
  j.cluster.gpus_per_node = reading.gpus_per_node;
  if (j.batch_size > 0) j.batch_size = reading.batch;
  if (reading.grad_accum > 0) j.grad_accum = static_cast<int>(std::lround(reading.grad_accum));
  j.mtp_depth = reading.mtp_depth;
  j.low_precision.bf16_last_layers = reading.bf16_last_layers;
  j.low_precision.bf16_modules = reading.bf16_modules;
  j.compile = reading.compile;
  if (j.parallelism.tensor > 1) j.overlap.tp_comm = reading.tp_comm_overlap;
}

}  // namespace

Table<RunRecord> load_runs(const std::string& path) {
  Table<RunRecord> runs = load_table<RunRecord>(path, runs_schema(), [&](const CsvTable& csv, const CsvRow& row,
                                                                          Table<RunRecord>& t) {
    const std::string& file = csv.file();
    auto exclude = [&](const std::string& why) { ++t.excluded[why]; };
    RunRecord r;
    r.line = row.line;
    r.run_id = csv.text(row, "run_id");
    r.source = csv.text(row, "source");
    r.quality = csv.text(row, "quality_flag");
    r.task = csv.text(row, "task");
    auto optional_text = [&](const char* col) { return csv.has_column(col) ? csv.text(row, col) : std::string(); };
    r.codebase = optional_text("codebase");
    if (r.codebase.empty()) r.codebase = r.source;
    const auto flags = flags_of(r.quality);
    JobSpec& j = r.job;
    j.file = file + ":" + std::to_string(row.line);
    // The run's codebase, as a user would name it: its recipes' stack (codebase_stack.hpp) applies.
    j.codebase = r.codebase;
    j.model = csv.text(row, "model");
    if (j.model.empty() && r.source == "llm") j.model = canonical_model_from_notes(optional_text("notes"));
    j.precision = csv.text(row, "precision");
    j.cluster.gpu = csv.text(row, "gpu");
    const auto step = csv.number(row, "step_time_s");
    if (step && *step <= 0)
      throw InputError(file, row.line, static_cast<int>(csv.column("step_time_s") + 1), "step_time_s",
                       "expected a positive time, got '" + csv.text(row, "step_time_s") + "'");
    if (j.model.empty()) { exclude("model not in the zoo"); return; }
    if (j.cluster.gpu.empty()) { exclude("GPU not in the catalog"); return; }
    if (!step) { exclude("no step time derivable from the published figure"); return; }
    std::string bad_flag;
    for (const auto& [flag, why] : kExcludedFlags)
      if (flags.count(flag)) bad_flag = why;
    if (!bad_flag.empty()) { exclude(bad_flag); return; }
    r.step_time_s = *step;
    j.framework = framework_id(csv.text(row, "framework"));
    j.memory_format = published_memory_format(r.source, j);
    j.xla = to_lower(csv.text(row, "xla")) == "yes" || csv.text(row, "xla") == "1" || to_lower(csv.text(row, "xla")) == "true";
    const auto batch = csv.number(row, "batch_size");
    if (!batch || *batch <= 0) { exclude("no micro-batch size"); return; }
    if (csv.text(row, "batch_unit") == "tokens") j.batch_tokens = *batch;
    else j.batch_size = *batch;
    if (auto s = csv.number(row, "seq_len")) j.seq_len = count_cell(csv, row, "seq_len", *s);
    // Rows whose model computes fewer tokens per sequence than the padded length (DLE's LDDL-binned
    // BERT phase 2; datasets/sources/dle.md) are described as what they compute.
    if (csv.has_column("computed_seq_len"))
      if (auto c = csv.number(row, "computed_seq_len")) j.seq_len = count_cell(csv, row, "computed_seq_len", *c);
    // Runs made with NCCL_P2P_DISABLE=1 (Lambda's scripts for a while; datasets/sources/lambda.md).
    if (csv.has_column("nccl_p2p") && csv.text(row, "nccl_p2p") == "disabled") j.cluster.nccl_p2p = false;
    if (auto a = csv.number(row, "grad_accum")) j.grad_accum = std::max(1, count_cell(csv, row, "grad_accum", std::round(*a)));
    const auto gpus = csv.number(row, "num_gpus");
    if (!gpus || *gpus < 1) { exclude("no GPU count"); return; }
    j.cluster.num_gpus = count_cell(csv, row, "num_gpus", *gpus);
    if (auto g = csv.number(row, "gpus_per_node");
        g && *g >= 1 && j.cluster.num_gpus % count_cell(csv, row, "gpus_per_node", *g) == 0)
      j.cluster.gpus_per_node = static_cast<int>(*g);
    auto degree = [&](const char* col) {
      auto v = csv.number(row, col);
      return v && *v >= 1 ? count_cell(csv, row, col, *v) : 1;
    };
    j.parallelism.tensor = degree("tp");
    j.parallelism.pipeline = degree("pp");
    j.parallelism.context = degree("cp");
    j.parallelism.virtual_pipeline = degree("vp");
    j.parallelism.expert = degree("ep");
    if (!csv.text(row, "sharding").empty()) j.sharding = csv.named(row, "sharding", sharding_names());
    if (!csv.text(row, "activation_checkpointing").empty())
      j.activation_checkpointing = csv.named(row, "activation_checkpointing", recompute_names());
    if (r.source == "llm") read_as_llm_framework_ran_it(csv, row, j);
    // The model as read (an LLM row may name it only in its notes): two models are two stacks.
    r.stack = stack_key(r.source, optional_text("source_ref"), optional_text("framework"), optional_text("notes"),
                        j.model, r.task);
    // LoRA fine-tuning rows: the tables name the method but not the adapters. NeMo and
    // Megatron-Bridge recipes: rank 32 (their LoRA default); NeMo AutoModel: rank 16, what every
    // LoRA benchmark config its performance summary links sets (peft.dim, target_modules '*_proj';
    // examples/llm_benchmark/*peft_benchmark*.yaml at NVIDIA-NeMo/Automodel@36044ad3d). Megatron-Bridge
    // and AutoModel adapt every linear projection of attention and MLP (the spec's default targets);
    // NeMo 1.x (the 24.07 container's tables) only the fused QKV projection, its lora_tuning default
    // (target_modules ['attention_qkv'], adapter_dim 32: examples/nlp/language_modeling/tuning/conf/
    // megatron_gpt_finetuning_config.yaml).
    if (r.task == "finetune_lora") {
      j.finetune.method = FinetuneMethod::lora;
      j.finetune.rank = to_lower(csv.text(row, "framework")).find("automodel") != std::string::npos ? 16 : 32;
      j.finetune.targets = {LoraTarget::attention, LoraTarget::mlp};
      if (r.codebase == "nemo") j.finetune.targets = {LoraTarget::attention_qkv};
    }
    // Optimizers the sources' training scripts use (DLE ConvNets: SGD momentum; BERT: LAMB).
    if (j.model.rfind("resnet", 0) == 0 || j.model.rfind("resnext", 0) == 0 || j.model.rfind("se-resnext", 0) == 0 ||
        j.model == "ssd300" || j.model == "maskrcnn-r50-fpn")
      j.optimizer = Optimizer::momentum;
    else if (j.model.rfind("bert", 0) == 0 && r.source == "dle")
      j.optimizer = Optimizer::lamb;
    t.rows.push_back(std::move(r));
  });
  exclude_sequences_faster_than_shorter_ones(runs);
  return runs;
}

// A row ptp-profile (or an ingested log) measured; failed, unsupported and skipped points carry no time.
static bool measured(const CsvTable& csv, const CsvRow& row) {
  const PointStatus* status = find_named(point_status_names(), csv.text(row, "status"));
  return status && *status == PointStatus::ok;
}

Table<OpRecord> load_ops(const std::string& path) {
  return load_table<OpRecord>(path, ops_schema(), [&](const CsvTable& csv, const CsvRow& row, Table<OpRecord>& t) {
    if (!measured(csv, row)) { ++t.excluded["status is not ok"]; return; }
    OpRecord r;
    r.line = row.line;
    r.source = csv.text(row, "source");
    r.op_class = csv.named(row, "op_class", op_class_names());
    r.dtype = csv.text(row, "dtype_compute").empty() ? csv.text(row, "dtype_in") : csv.text(row, "dtype_compute");
    r.gpu = csv.text(row, "gpu");
    r.time_s = csv.positive(row, "time_s");
    r.m = csv.number(row, "m").value_or(0);
    r.n = csv.number(row, "n").value_or(0);
    r.k = csv.number(row, "k").value_or(0);
    r.batch = csv.number(row, "batch").value_or(1);
    r.flops = csv.number(row, "flops").value_or(0);
    r.bytes = csv.number(row, "bytes").value_or(0);
    if (r.flops <= 0 && r.bytes <= 0) { ++t.excluded["neither flops nor bytes known"]; return; }
    t.rows.push_back(r);
  });
}

Table<CollectiveRecord> load_collectives(const std::string& path) {
  return load_table<CollectiveRecord>(path, collectives_schema(),
                                      [&](const CsvTable& csv, const CsvRow& row, Table<CollectiveRecord>& t) {
    if (!measured(csv, row)) { ++t.excluded["status is not ok"]; return; }
    CollectiveRecord r;
    r.line = row.line;
    r.source = csv.text(row, "source");
    r.collective = csv.text(row, "collective");
    r.gpu = csv.text(row, "gpu");
    r.dtype = csv.text(row, "dtype");
    r.fabric_inter = csv.text(row, "fabric_inter");
    r.size_bytes = csv.positive(row, "size_bytes");
    r.time_s = csv.positive(row, "time_s");
    r.ranks = count_cell(csv, row, "ranks", csv.positive(row, "ranks"));
    r.nodes = count_cell(csv, row, "nodes", csv.positive(row, "nodes"));
    r.ranks_per_node =
        count_cell(csv, row, "ranks_per_node", csv.number(row, "ranks_per_node").value_or(r.ranks / std::max(1, r.nodes)));
    if (r.collective != "all_reduce") { ++t.excluded["not an all_reduce (only all_reduce is modelled)"]; return; }
    if (r.ranks < 2) { ++t.excluded["fewer than 2 ranks"]; return; }
    if (r.nodes > 1 && (r.fabric_inter.empty() || r.fabric_inter == "unknown")) {
      ++t.excluded["multi-node row with an undocumented inter-node fabric"];
      return;
    }
    t.rows.push_back(r);
  });
}

}  // namespace ptp::train
