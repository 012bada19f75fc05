// The memory estimate against the published peak-memory table (datasets/memory.csv): every row
// that can be stated as a job spec is predicted with the analytical model and compared, like with
// like, with the layer its memory kind measures -- allocated (max_memory_allocated, torchtune's peak
// active), reserved (max_memory_reserved, also with the init reserve subtracted) or what the GPU
// holds (nvidia-smi, screenshots and the rows that do not say). Nothing is fitted: the reserves are
// stated constants (AnalyticalConstants) and the copies follow each row's memory convention. ptp-train
// writes the tables into its report; apps/ptp-eval/main.cpp prints them (docs/memory-evaluation.md).
#include "ptp/eval/memory_evaluation.hpp"

#include "memory_rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ptp/predict/analytical.hpp"
#include "ptp/predict/job_spec.hpp"
#include "ptp/predict/model_zoo.hpp"
#include "ptp/vocab/llm_run_reading.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/yaml_reader.hpp"

#include "ptp/eval/vocabulary.hpp"

namespace ptp::eval {

using detail::make_job;
using detail::Row;

namespace {

__attribute__((format(printf, 2, 3))) void appendf(std::string& out, const char* fmt, ...) {
  char buf[4096];
  va_list args;
  va_start(args, fmt);
  const int n = std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  if (n < 0) return;
  if (static_cast<std::size_t>(n) < sizeof buf) {
    out.append(buf, static_cast<std::size_t>(n));
    return;
  }
  std::string big(static_cast<std::size_t>(n) + 1, '\0');
  va_start(args, fmt);
  std::vsnprintf(big.data(), big.size(), fmt, args);
  va_end(args);
  big.resize(static_cast<std::size_t>(n));
  out += big;
}


struct Stats {
  int n = 0;
  double mape = 0, median = 0, signed_mean = 0, within10 = 0;
};
Stats stats(const std::vector<const Row*>& rows) {
  Stats s;
  s.n = static_cast<int>(rows.size());
  if (rows.empty()) return s;
  std::vector<double> ape;
  for (const Row* r : rows) {
    const double ratio = r->predicted_bytes() / kBytesPerGiB / r->measured_gib;
    ape.push_back(std::fabs(ratio - 1));
    s.signed_mean += ratio - 1;
    s.within10 += std::fabs(ratio - 1) <= 0.10;
  }
  for (double a : ape) s.mape += a;
  s.mape *= 100.0 / s.n;
  s.signed_mean *= 100.0 / s.n;
  s.within10 *= 100.0 / s.n;
  std::sort(ape.begin(), ape.end());
  const std::size_t mid = ape.size() / 2;
  s.median = 100 * (ape.size() % 2 ? ape[mid] : 0.5 * (ape[mid - 1] + ape[mid]));
  return s;
}

void table(std::string& out, const std::string& title, const std::vector<Row>& rows,
           std::string (*key)(const Row&), bool stand_in_rows = false) {
  std::map<std::string, std::vector<const Row*>> all, clean;
  std::vector<const Row*> every, every_clean;
  for (const auto& r : rows) {
    if (!r.skip.empty() || r.stand_in.empty() == stand_in_rows) continue;
    all[key(r)].push_back(&r);
    every.push_back(&r);
    if (r.clean) {
      clean[key(r)].push_back(&r);
      every_clean.push_back(&r);
    }
  }
  appendf(out, "\n%s\n\n| %s | rows | MAPE %% | median APE %% | mean signed error %% | within 10 %% | clean rows | "
              "clean MAPE %% | clean median %% | clean signed %% |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
              title.c_str(), "group");
  auto line = [&out](const std::string& k, const std::vector<const Row*>& a, const std::vector<const Row*>& b) {
    const Stats s = stats(a), q = stats(b);
    appendf(out, "| %s | %d | %.1f | %.1f | %+.1f | %.0f%% | %d |", k.c_str(), s.n, s.mape, s.median, s.signed_mean,
                s.within10, q.n);
    if (q.n) appendf(out, " %.1f | %.1f | %+.1f |\n", q.mape, q.median, q.signed_mean);
    else appendf(out, " - | - | - |\n");
  };
  for (const auto& [k, v] : all) line(k, v, clean[k]);
  line("**all**", every, every_clean);
}

std::string by_origin(const Row& r) { return r.origin; }
std::string by_kind(const Row& r) { return r.kind; }
std::string by_origin_kind(const Row& r) { return r.origin + " / " + r.kind; }
std::string by_finetune(const Row& r) { return r.finetune; }
std::string by_model(const Row& r) { return r.model; }
std::string by_precision(const Row& r) { return r.precision; }
std::string by_convention(const Row& r) { return r.m.convention; }

void write_row_csv(std::ofstream& rows_csv, const Row& e) {
  const double g = kBytesPerGiB;
  rows_csv << e.id << ',' << e.origin << ',' << e.kind << ',' << e.finetune << ',' << e.model << ',' << e.gpu
           << ',' << (e.stand_in.empty() ? 0 : 1) << ',' << e.precision << ',' << csv_escape(e.flags) << ','
           << e.measured_gib << ',' << e.predicted_bytes() / g << ',' << e.predicted_bytes() / g / e.measured_gib
           << ',' << e.m.convention << ',' << e.m.weights / g << ',' << e.m.master_weights / g << ','
           << e.m.gradients / g << ',' << e.m.optimizer_state / g << ',' << e.m.activations / g << ','
           << e.m.allocated_bytes / g << ',' << e.m.reserved_bytes / g << ',' << e.m.per_gpu_bytes / g << '\n';
}

// Every row of the table, predicted or with its skip reason (counted in `skipped`); the evaluated
// ones also go to o.rows_csv and their job specs to o.jobs_dir, when asked.
std::vector<Row> evaluate_rows(const CsvTable& t, const std::vector<std::string>& zoo, const MemoryEvaluationOptions& o,
                               const Catalogs& catalogs, std::map<std::string, int>& skipped) {
  std::vector<Row> rows;
  std::ofstream rows_csv;
  if (!o.rows_csv.empty()) {
    rows_csv.open(o.rows_csv);
    rows_csv << "row_id,origin,memory_kind,finetune,model,gpu,stand_in,precision,quality_flag,measured_gib,"
                "predicted_gib,ratio,convention,weights_gib,master_gib,gradients_gib,optimizer_gib,activations_gib,"
                "allocated_gib,reserved_gib,device_gib\n";
  }
  if (!o.jobs_dir.empty()) std::filesystem::create_directories(o.jobs_dir);
  // The data's README (caveat 4): some multi-GPU rows repeat the 1-GPU value of the same config.
  // A multi-GPU row whose value equals a 1-GPU row's of the same origin, model and method is that.
  std::map<std::string, std::vector<std::string>> single_gpu_values;
  auto config_key = [&](const CsvRow& r) {
    return t.text(r, "origin") + "|" + t.text(r, "model") + "|" + t.text(r, "finetune");
  };
  for (const auto& r : t.rows())
    if (t.text(r, "num_gpus") == "1") single_gpu_values[config_key(r)].push_back(t.text(r, "measured_peak_gib"));
  for (const auto& r : t.rows()) {
    Row e;
    make_job(t, r, zoo, o.stand_in_gpu, e);
    const auto& same = single_gpu_values[config_key(r)];
    if (e.skip.empty() && t.text(r, "num_gpus") != "1" &&
        std::find(same.begin(), same.end(), t.text(r, "measured_peak_gib")) != same.end())
      e.skip = "multi-GPU value repeats the 1-GPU value of the same config (data README, caveat 4)";
    if (e.skip.empty()) {
      const std::string name = "memory.csv row " + e.id;
      try {
        const auto job = parse_job_spec(YamlReader::load_string(e.job_yaml, name));
        e.m = predict_analytical(resolve_job(job, catalogs)).memory;
      } catch (const InputError& err) {
        e.skip = "job rejected by validation";
        std::fprintf(stderr, "%s (%s): rejected: %s\n", name.c_str(), e.model.c_str(), err.what());
      }
    }
    // What every memory kind counts at the optimizer step: the weights, their gradients and the
    // optimizer state at the stated dtypes and sharding. A published peak below it contradicts the
    // row's own configuration (litgpt's config-hub full fine-tunes of Llama 3.2 1B / 3B on one A10G:
    // AdamW on bf16-true weights needs 9.2 / 23.9 GiB, 8.1 / 15.4 GiB published), so it judges the
    // configuration, not the estimate.
    if (e.skip.empty()) {
      const double resident = e.m.weights + e.m.master_weights + e.m.gradients + e.m.optimizer_state;
      if (e.measured_gib * kBytesPerGiB < resident)
        e.skip = "published peak below the weights, gradients and optimizer state its configuration keeps resident";
    }
    if (!e.skip.empty()) {
      ++skipped[e.skip];
      rows.push_back(e);
      continue;
    }
    if (!o.jobs_dir.empty()) std::ofstream(o.jobs_dir + "/row-" + e.id + ".yaml") << e.job_yaml;
    if (rows_csv) write_row_csv(rows_csv, e);
    rows.push_back(e);
  }
  return rows;
}

// OOM rows: the same rules as if they had run; the estimate should exceed the GPU's capacity.
struct OomCheck {
  int rows = 0, mapped = 0, predicted = 0;
  std::vector<std::string> lines;  // markdown table rows
};
OomCheck check_oom_rows(const CsvTable& t, const std::vector<std::string>& zoo, const Catalogs& catalogs) {
  OomCheck oom;
  for (const auto& r : t.rows()) {
    if (t.text(r, "outcome") != "oom") continue;
    ++oom.rows;
    Row e;
    make_job(t, r, zoo, "", e, true);
    if (!e.skip.empty()) continue;
    try {
      const auto m = predict_analytical(resolve_job(parse_job_spec(YamlReader::load_string(e.job_yaml, "oom row")),
                                                    catalogs)).memory;
      ++oom.mapped;
      if (!m.fits) ++oom.predicted;
      oom.lines.push_back("| " + e.id + " | " + e.model + " | " + e.gpu + " | " + e.finetune + " | " +
                          std::to_string(m.per_gpu_bytes / kBytesPerGiB).substr(0, 5) + " | " +
                          std::to_string(m.capacity_bytes / kBytesPerGiB).substr(0, 5) + " | " +
                          (m.fits ? "fits (miss)" : "does not fit") + " |");
    } catch (const InputError&) {
    }
  }
  return oom;
}

std::string memory_markdown(const std::vector<Row>& rows, const std::map<std::string, int>& skipped, const OomCheck& oom,
                            const std::string& stand_in) {
  std::string out;
  int evaluated = 0, stand_ins = 0;
  for (const auto& r : rows)
    if (r.skip.empty()) (r.stand_in.empty() ? evaluated : stand_ins)++;
  appendf(out, "%zu rows; %d evaluated on their catalog GPU",
              rows.size(), evaluated);
  if (!stand_in.empty()) appendf(out, ", %d more on the stand-in GPU %s", stand_ins, stand_in.c_str());
  appendf(out, ".\n\n| not evaluated, reason | rows |\n|---|---:|\n");
  std::vector<std::pair<std::string, int>> reasons(skipped.begin(), skipped.end());
  std::sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [reason, n] : reasons) appendf(out, "| %s | %d |\n", reason.c_str(), n);
  appendf(out, 
      "\nError = the predicted layer the row's memory kind measures, / 2^30, against measured_peak_gib: "
      "memory.allocated_bytes for allocated and active rows, memory.reserved_bytes (allocated + 10 %% allocator "
      "slack) for reserved rows, memory.per_gpu_bytes (reserved + CUDA context + NCCL buffers) for nvidia-smi, "
      "screenshot and not-stated rows. Signed error = mean of (predicted / measured - 1). \"clean\" = rows with "
      "a blank quality_flag. Each row's copies follow its memory_convention column (datasets/memory.csv); "
      "qlora rows store the block projections in NF4 (litgpt's the LM head too, and each dequantised weight passes through FP16: finetune.quantized_head, quantized_from_fp16).\n");
  table(out, "## Per origin", rows, by_origin);
  table(out, "## Per memory kind", rows, by_kind);
  table(out, "## Per origin and memory kind", rows, by_origin_kind);
  table(out, "## Per fine-tuning method", rows, by_finetune);
  table(out, "## Per memory convention", rows, by_convention);
  table(out, "## Per precision", rows, by_precision);
  table(out, "## Per model", rows, by_model);
  if (!stand_in.empty() && stand_ins > 0)
    table(out, "## Rows whose GPU is not named, on the stand-in GPU " + stand_in + ", per origin and memory kind", rows,
          by_origin_kind, true);
  appendf(out, "\n## OOM rows (published as out of memory, no value)\n\n%d OOM rows, %d stated as job specs by the "
              "same rules; the estimate exceeds the GPU's capacity on %d of them.\n\n| row | model | gpu | finetune | "
              "predicted GiB | capacity GiB | verdict |\n|---|---|---|---|---:|---:|---|\n",
              oom.rows, oom.mapped, oom.predicted);
  for (const auto& l : oom.lines) appendf(out, "%s\n", l.c_str());
  return out;
}

// The headline per memory kind and overall, for the bundle's metrics.
nlohmann::json memory_summary(const std::vector<Row>& rows) {
  std::map<std::string, std::vector<const Row*>> by_kind_rows;
  std::vector<const Row*> every;
  for (const auto& r : rows) {
    if (!r.skip.empty() || !r.stand_in.empty()) continue;
    by_kind_rows[r.kind].push_back(&r);
    every.push_back(&r);
  }
  auto summary = [](const Stats& s) {
    return nlohmann::json{{"rows", s.n}, {"mape", s.mape}, {"median_ape", s.median}, {"signed", s.signed_mean},
                          {"within_10", s.within10}};
  };
  nlohmann::json out = summary(stats(every));
  for (const auto& [kind, v] : by_kind_rows) out["by_kind"][kind] = summary(stats(v));
  return out;
}

}  // namespace

MemoryEvaluation evaluate_memory(const MemoryEvaluationOptions& o, const Catalogs& catalogs) {
  const auto t = CsvTable::read_file(o.memory_csv);
  const auto zoo = zoo_ids(catalogs.models_dir());
  std::map<std::string, int> skipped;
  const std::vector<Row> rows = evaluate_rows(t, zoo, o, catalogs, skipped);
  const OomCheck oom = check_oom_rows(t, zoo, catalogs);
  MemoryEvaluation result;
  result.markdown = memory_markdown(rows, skipped, oom, o.stand_in_gpu);
  result.summary = memory_summary(rows);
  return result;
}

}  // namespace ptp::eval
