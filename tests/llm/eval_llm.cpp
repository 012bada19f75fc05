// ptp_eval_llm: predicts every row of the published LLM throughput data (datasets/runs.csv,
// source = llm) that can be stated as a job spec with the ANALYTICAL model, and prints coverage,
// step-time MAPE per precision / GPU family / parallelism style / framework / model, and the error
// of the predicted FP8-over-BF16 (and FP4-over-BF16) speed-ups on rows that differ only in precision.
//
//   ptp_eval_llm [--runs datasets/runs.csv] [--config-dir configs] [--rows out.csv] [--jobs DIR]
//                [--constant NAME=VALUE ...]   (sensitivity of the documented constants)
//
// Nothing is fitted per row: each row becomes a YAML job spec (--jobs writes them, so any row can be
// re-run with ptp-predict) and goes through the same validation and model as ptp-predict.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include "analytical/parallelism.hpp"
#include "eval_rows.hpp"
#include "ptp/predict/analytical.hpp"
#include "ptp/predict/energy.hpp"
#include "ptp/predict/job_spec.hpp"
#include "ptp/vocab/error.hpp"

using namespace ptp;
using namespace ptp::llm_eval;

namespace {
struct Result {
  EvalRow row;
  double predicted_s = 0;
  bool fits = true;
};

void print_group(const std::string& title, const std::vector<Result>& results,
                 std::string (*key)(const Result&)) {
  std::map<std::string, std::vector<std::pair<double, double>>> groups;
  for (const auto& r : results) groups[key(r)].emplace_back(r.predicted_s, r.row.measured_step_s);
  std::printf("\n%s\n  %-34s %5s %8s %8s %8s\n", title.c_str(), "", "rows", "MAPE%", "median%", "bias%");
  for (const auto& [k, v] : groups) {
    const auto s = error_stats(v);
    std::printf("  %-34s %5d %8.1f %8.1f %+8.1f\n", k.c_str(), s.n, s.mape, s.median_ape, s.bias);
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
void speedups(const std::vector<Result>& results, const std::set<std::string>& base, const std::string& low) {
  std::map<std::string, std::vector<const Result*>> by_key;
  for (const auto& r : results) by_key[pairing_key(r.row)].push_back(&r);
  std::vector<std::pair<double, double>> all, per_tensor;
  const std::string base_name = *base.rbegin();
  std::printf("\n%s over %s speed-up, rows identical except precision\n", low.c_str(), base_name.c_str());
  std::printf("  %-16s %-14s %5s %-24s %9s %9s %7s\n", "model", "gpu", "gpus", (low + " as published").c_str(),
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
        std::printf("  %-16s %-14s %5d %-24.24s %9.3f %9.3f %+7.1f\n", f->row.model.c_str(), f->row.gpu.c_str(),
                    f->row.num_gpus, f->row.precision_as_published.c_str(), meas, pred, 100 * (pred / meas - 1));
      }
    }
  }
  const auto s = error_stats(all), t = error_stats(per_tensor);
  std::printf("  all pairs %d: speed-up MAPE %.1f%%, median %.1f%%, bias %+.1f%%\n", s.n, s.mape, s.median_ape, s.bias);
  if (t.n != s.n)
    std::printf("  without row-wise scaling %d: speed-up MAPE %.1f%%, median %.1f%%, bias %+.1f%%\n", t.n, t.mape,
                t.median_ape, t.bias);
}
}  // namespace

int main(int argc, char** argv) {
  std::string runs = std::string(PTP_SOURCE_DIR) + "/datasets/runs.csv";
  std::string config = std::string(PTP_SOURCE_DIR) + "/configs";
  std::string rows_out, jobs_dir;
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
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--constant") {
      const std::string kv = argv[i + 1];
      const auto eq = kv.find('=');
      const auto it = knobs.find(kv.substr(0, eq));
      if (eq == std::string::npos || it == knobs.end()) {
        std::cerr << "--constant NAME=VALUE with NAME one of gemm_tc_emax fused_attention_emax memory_emax "
                     "tc_power_exponent tp_exposed "
                     "p2p_exposed dp_overlap a2a_exposed\n";
        return 2;
      }
      *it->second = std::stod(kv.substr(eq + 1));
    } else if (a == "--runs") runs = argv[i + 1];
    else if (a == "--config-dir") config = argv[i + 1];
    else if (a == "--rows") rows_out = argv[i + 1];
    else if (a == "--jobs") jobs_dir = argv[i + 1];
    else {
      std::cerr << "usage: ptp_eval_llm [--runs CSV] [--config-dir DIR] [--rows OUT.csv] [--jobs DIR]\n";
      return 2;
    }
  }
  try {
    const auto table = CsvTable::read_file(runs);
    const Catalogs catalogs(config);
    const auto zoo = zoo_ids(catalogs.models_dir());
    std::vector<Result> results;
    std::map<std::string, int> skipped;
    int total = 0;
    std::ofstream rows_csv;
    if (!rows_out.empty()) {
      rows_csv.open(rows_out);
      rows_csv << "line,model,precision,gpu,num_gpus,tp,pp,vp,cp,ep,sharding,recompute,framework,measured_s,"
                  "predicted_s,ape,fits,mfu\n";
    }
    if (!jobs_dir.empty()) std::filesystem::create_directories(jobs_dir);
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
        std::fprintf(stderr, "%s: %s rejected: %s\n", name.c_str(), e.model.c_str(), what.c_str());
        continue;
      }
      if (!jobs_dir.empty()) std::ofstream(jobs_dir + "/row-" + std::to_string(e.line) + ".yaml") << e.job_yaml;
      results.push_back({e, p.iteration_s, p.memory.fits});
      if (rows_csv) {
        rows_csv << e.line << ',' << e.model << ',' << e.precision << ',' << e.gpu << ',' << e.num_gpus << ',' << e.tp
                 << ',' << e.pp << ',' << e.vp << ',' << e.cp << ',' << e.ep << ',' << e.sharding << ',' << e.recompute
                 << ',' << e.framework_key << ',' << e.measured_step_s << ',' << p.iteration_s << ','
                 << std::fabs(p.iteration_s / e.measured_step_s - 1) << ',' << (p.memory.fits ? 1 : 0) << ',' << p.mfu
                 << '\n';
      }
    }
    std::printf("LLM throughput data: %d rows, %zu predicted (%.0f%%)\n", total, results.size(),
                total ? 100.0 * results.size() / total : 0.0);
    for (const auto& [reason, n] : skipped) std::printf("  not covered: %4d  %s\n", n, reason.c_str());
    int no_fit = 0;
    for (const auto& r : results) no_fit += !r.fits;
    std::printf("  predicted rows flagged as not fitting in memory: %d\n", no_fit);
    std::vector<std::pair<double, double>> all;
    for (const auto& r : results) all.emplace_back(r.predicted_s, r.row.measured_step_s);
    const auto s = error_stats(all);
    std::printf("\nstep time, all predicted rows: n=%d MAPE %.1f%% median %.1f%% bias %+.1f%%\n", s.n, s.mape,
                s.median_ape, s.bias);
    print_group("per precision", results, by_precision);
    print_group("per GPU family", results, by_gpu);
    print_group("per parallelism style", results, by_style);
    print_group("per framework", results, by_framework);
    print_group("per model (an analytical model has no training set: these are its per-model errors)", results,
                by_model);
    speedups(results, {"amp_bf16", "bf16"}, "fp8");
    speedups(results, {"amp_bf16", "bf16"}, "fp4");
    speedups(results, {"fp8"}, "fp4");
  } catch (const std::exception& e) {
    std::cerr << "ptp_eval_llm: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
