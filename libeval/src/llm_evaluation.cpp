// The LLM throughput evaluation (llm_evaluation.hpp): every row of datasets/runs.csv (source = llm)
// that can be stated as a job spec, predicted with the ANALYTICAL model. Nothing is fitted per row:
// each row becomes a YAML job spec (jobs_dir writes them, so any row can be re-run with ptp-predict)
// and goes through the same validation and model as ptp-predict.
#include "ptp/eval/llm_evaluation.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "ptp/eval/llm_rows.hpp"
#include "ptp/predict/detail/parallelism.hpp"
#include "ptp/predict/analytical.hpp"
#include "ptp/predict/energy.hpp"
#include "ptp/predict/job_spec.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/eval/vocabulary.hpp"

namespace ptp::eval {

namespace {
struct Result {
  EvalRow row;
  double predicted_s = 0;
  bool fits = true;
};

void print_group(std::FILE* out, const std::string& title, const std::vector<Result>& results,
                 std::string (*key)(const Result&)) {
  std::map<std::string, std::vector<std::pair<double, double>>> groups;
  for (const auto& r : results) groups[key(r)].emplace_back(r.predicted_s, r.row.measured_step_s);
  std::fprintf(out, "\n%s\n  %-34s %5s %8s %8s %8s\n", title.c_str(), "", "rows", "MAPE%", "median%", "bias%");
  for (const auto& [k, v] : groups) {
    const auto s = error_stats(v);
    std::fprintf(out, "  %-34s %5d %8.1f %8.1f %+8.1f\n", k.c_str(), s.n, s.mape, s.median_ape, s.bias);
  }
}

std::string by_precision(const Result& r) { return r.row.precision; }
std::string by_gpu(const Result& r) { return gpu_family(r.row.gpu); }
std::string by_style(const Result& r) { return parallelism_style(r.row); }
std::string by_framework(const Result& r) { return r.row.framework_key; }
std::string by_model(const Result& r) { return r.row.model; }

// Speed-up of `low` over `base` precision on rows identical except precision. torchao's row-wise
// FP8 rows are read with fp8_recipe: rowwise; their pairs are also reported apart from the
// per-tensor ones.
void speedups(std::FILE* out, const std::vector<Result>& results, const std::set<std::string>& base, const std::string& low) {
  std::map<std::string, std::vector<const Result*>> by_key;
  for (const auto& r : results) by_key[pairing_key(r.row)].push_back(&r);
  std::vector<std::pair<double, double>> all, per_tensor;
  const std::string base_name = *base.rbegin();
  std::fprintf(out, "\n%s over %s speed-up, rows identical except precision\n", low.c_str(), base_name.c_str());
  std::fprintf(out, "  %-16s %-14s %5s %-24s %9s %9s %7s\n", "model", "gpu", "gpus", (low + " as published").c_str(),
              "measured", "predicted", "err%");
  for (const auto& [key, rows] : by_key) {
    for (const Result* b : rows) {
      if (!base.count(b->row.precision)) continue;
      for (const Result* f : rows) {
        if (f->row.precision != low) continue;
        const double meas = b->row.measured_step_s / f->row.measured_step_s;
        const double pred = b->predicted_s / f->predicted_s;
        all.emplace_back(pred, meas);
        if (f->row.precision_as_published.find("rowwise") == std::string::npos) per_tensor.emplace_back(pred, meas);
        std::fprintf(out, "  %-16s %-14s %5d %-24.24s %9.3f %9.3f %+7.1f\n", f->row.model.c_str(), f->row.gpu.c_str(),
                    f->row.num_gpus, f->row.precision_as_published.c_str(), meas, pred, 100 * (pred / meas - 1));
      }
    }
  }
  const auto s = error_stats(all), t = error_stats(per_tensor);
  std::fprintf(out, "  all pairs %d: speed-up MAPE %.1f%%, median %.1f%%, bias %+.1f%%\n", s.n, s.mape, s.median_ape, s.bias);
  if (t.n != s.n)
    std::fprintf(out, "  without row-wise scaling %d: speed-up MAPE %.1f%%, median %.1f%%, bias %+.1f%%\n", t.n, t.mape,
                t.median_ape, t.bias);
}
}  // namespace

void report_llm_evaluation(const LlmEvaluationOptions& o, std::FILE* out, std::FILE* log) {
  AnalyticalConstants k;
  ParallelConstants pk;
  // Sensitivity checks of the documented constants (name=value); the report uses the defaults.
  const std::map<std::string, double*> knobs{{"gemm_tc_emax", &k.gemm_tc_emax},
                                              {"fused_attention_emax", &k.fused_attention_emax},
                                              {"memory_emax", &k.memory_emax},
                                              {"tc_power_exponent", &k.tc_power_exponent},
                                              {"tp_exposed", &pk.tp_exposed},
                                              {"p2p_exposed", &pk.p2p_exposed},
                                              {"dp_overlap", &pk.dp_overlap},
                                              {"a2a_exposed", &pk.a2a_exposed}};
  for (const auto& [name, value] : o.constants) {
    const auto it = knobs.find(name);
    if (it == knobs.end()) {
      std::string names;
      for (const auto& [n, unused] : knobs) names += " " + n;
      throw InputError("--constant " + name + ": not a constant the evaluation varies; one of" + names);
    }
    *it->second = value;
  }
  {
    const auto table = CsvTable::read_file(o.runs_csv);
    const Catalogs catalogs(o.config_dir);
    const auto zoo = zoo_ids(catalogs.models_dir());
    std::vector<Result> results;
    std::map<std::string, int> skipped;
    int total = 0;
    std::ofstream rows_csv;
    if (!o.rows_csv.empty()) {
      rows_csv.open(o.rows_csv);
      rows_csv << "line,model,precision,gpu,num_gpus,tp,pp,vp,cp,ep,sharding,recompute,framework,measured_s,"
                  "predicted_s,ape,fits,mfu\n";
    }
    if (!o.jobs_dir.empty()) std::filesystem::create_directories(o.jobs_dir);
    for (const auto& row : table.rows()) {
      if (table.text(row, "source") != "llm") continue;
      ++total;
      EvalRow e = make_eval_row(table, row, zoo);
      if (e.job_yaml.empty()) {
        ++skipped[e.skip_reason.substr(0, e.skip_reason.find(" ("))];
        continue;
      }
      const std::string name = "runs.csv:" + std::to_string(e.line);
      Prediction p;
      try {
        const auto job = parse_job_spec(YamlReader::load_string(e.job_yaml, name));
        const ResolvedJob resolved = resolve_job(job, catalogs);
        p = predict_analytical(resolved, k, pk);
        apply_power_model(resolved, p);  // as ptp-predict --analytical: a GPU's default power cap applies
      } catch (const InputError& err) {
        std::string what = err.what();
        ++skipped["layout rejected by validation"];
        std::fprintf(log, "%s: %s rejected: %s\n", name.c_str(), e.model.c_str(), what.c_str());
        continue;
      }
      if (!o.jobs_dir.empty()) std::ofstream(o.jobs_dir + "/row-" + std::to_string(e.line) + ".yaml") << e.job_yaml;
      results.push_back({e, p.iteration_s, p.memory.fits});
      if (rows_csv) {
        rows_csv << e.line << ',' << e.model << ',' << e.precision << ',' << e.gpu << ',' << e.num_gpus << ',' << e.tp
                 << ',' << e.pp << ',' << e.vp << ',' << e.cp << ',' << e.ep << ',' << e.sharding << ',' << e.recompute
                 << ',' << e.framework_key << ',' << e.measured_step_s << ',' << p.iteration_s << ','
                 << std::fabs(p.iteration_s / e.measured_step_s - 1) << ',' << (p.memory.fits ? 1 : 0) << ',' << p.mfu
                 << '\n';
      }
    }
    std::fprintf(out, "LLM throughput data: %d rows, %zu predicted (%.0f%%)\n", total, results.size(),
                total ? 100.0 * results.size() / total : 0.0);
    for (const auto& [reason, n] : skipped) std::fprintf(out, "  not covered: %4d  %s\n", n, reason.c_str());
    int no_fit = 0;
    for (const auto& r : results) no_fit += !r.fits;
    std::fprintf(out, "  predicted rows flagged as not fitting in memory: %d\n", no_fit);
    std::vector<std::pair<double, double>> all;
    for (const auto& r : results) all.emplace_back(r.predicted_s, r.row.measured_step_s);
    const auto s = error_stats(all);
    std::fprintf(out, "\nstep time, all predicted rows: n=%d MAPE %.1f%% median %.1f%% bias %+.1f%%\n", s.n, s.mape,
                s.median_ape, s.bias);
    print_group(out, "per precision", results, by_precision);
    print_group(out, "per GPU family", results, by_gpu);
    print_group(out, "per parallelism style", results, by_style);
    print_group(out, "per framework", results, by_framework);
    print_group(out, "per model (an analytical model has no training set: these are its per-model errors)", results,
                by_model);
    speedups(out, results, {"amp_bf16", "bf16"}, "fp8");
    speedups(out, results, {"amp_bf16", "bf16"}, "fp4");
    speedups(out, results, {"fp8"}, "fp4");
  }
}

}  // namespace ptp::eval
