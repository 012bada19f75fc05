// ptp-predict: predicted training time for YAML job specs. Exit codes: ptp/vocab/exit_codes.hpp.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <thread>

#include "../cli_number.hpp"
#include "ptp/predict/catalog_listing.hpp"
#include "ptp/predict/job_fields.hpp"
#include "ptp/predict/predict_session.hpp"
#include "ptp/predict/training_log.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/exit_codes.hpp"
#include "ptp/vocab/hardware.hpp"
#include "ptp/predict/learned/bundle.hpp"
#include "ptp/predict/output.hpp"
#include "ptp/vocab/dataset_schema.hpp"
#include "ptp/vocab/version.hpp"

int main(int argc, char** argv) {
  CLI::App app{"ptp-predict: precision-aware training-time prediction from a YAML job spec"};
  app.set_version_flag("--version", ptp::version_line("ptp-predict", "bundle schema " + std::to_string(ptp::kBundleSchemaVersion) + ", dataset schema " + ptp::kDatasetSchemaVersion + ", output schema " + std::to_string(ptp::kOutputSchemaVersion)));
  app.footer(ptp::exit_codes_help("ptp-predict"));
  ptp::PredictRequest req;
  std::vector<std::string> sets, unsets, sweeps;
  std::string bundle, config_dir;
  bool analytical = false;
  double max_hours = -1, max_cost = -1, max_kwh = -1;
  auto* jobs = app.add_option("jobs", req.job_files, "job spec YAML file(s)");
  bool describe_job_spec = false;
  app.add_flag("--describe-job-spec", describe_job_spec,
               "print the reference of every job-spec field as Markdown (docs/job-spec.md) and exit")
      ->excludes(jobs);
  std::string list_kind;
  std::string kinds;
  for (const auto& k : ptp::listing_kinds()) kinds += (kinds.empty() ? "" : " | ") + k;
  auto* list = app.add_option("--list", list_kind,
                 "print what a job can name, one line per entry, sorted, and exit: " + kinds +
                     " (GPUs with memory, peak TFLOP/s per precision and catalog price; models with parameters)")
      ->excludes(jobs);
  auto* emit_job = app.add_flag("--emit-job", "print each job as read, with --set/--unset applied, as a job file "
                                              "(YAML; predicting it gives the same answer) and exit");
  std::string formats;
  for (const auto& f : ptp::output_format_names()) formats += (formats.empty() ? "" : " | ") + f;
  app.add_option("--format", req.format, formats)->check(CLI::IsMember(ptp::output_format_names()));
  app.add_option("--set", sets, "override a spec field: key=value (repeatable)");
  app.add_option("--unset", unsets, "remove a spec field before --set applies: dotted key (repeatable)");
  app.add_option("--sweep", sweeps, "sweep a field: key=v1,v2,... (repeatable; cross-product)");
  app.add_option("--max-hours", max_hours, "exit 3 when the predicted wall time exceeds H hours")->check(ptp::cli::number_in(0, 1e9));
  app.add_option("--max-cost", max_cost, "exit 3 when the predicted cost exceeds USD")->check(ptp::cli::number_in(0, 1e15));
  app.add_option("--max-kwh", max_kwh,
                 "exit 3 when the run's predicted facility energy (GPU boards + node share, x PUE) exceeds kWh")
      ->check(ptp::cli::number_in(0, 1e15));
  app.add_flag("--require-fit", req.require_fit,
               "exit 4 when a job or any sweep row (the best row of a search) does not fit in GPU memory with the "
               "estimate's headroom to spare");
  app.add_option("--trace", req.trace_path, "write the predicted step as a Chrome/Perfetto trace JSON");
  app.add_option("--calibrate", req.calibrate_path,
                 "MEASURED.csv (columns job, step_time_s): fit the prediction to your stack's measured steps");
  auto* calibrate_log = app.add_option("--calibrate-log", req.calibrate_logs,
                 "TRAINING.log of the job file as written (Megatron-LM, NeMo, torchtitan, HF Trainer, Lightning, "
                 "MLPerf MLLOG or a step_time_s CSV): its steady-state step calibrates every prediction (repeatable)");
  std::string log_formats;
  for (const auto& f : ptp::log_format_names()) log_formats += (log_formats.empty() ? "" : " | ") + std::string(f.name);
  app.add_option("--log-format", req.log_format, "the --calibrate-log format: " + log_formats + " (default: recognised)")
      ->check(CLI::IsMember(ptp::names_of(ptp::log_format_names())))
      ->needs(calibrate_log);
  std::string objective = "time";
  auto* search = app.add_flag("--search", req.search,
                              "rank configurations around the job (precision, layout, sharding, recompute, micro-batch "
                              "at a fixed global batch) that fit in memory; --format json prints one object "
                              "{search: counts, job, rows: [...]}, jsonl/csv one record per row");
  std::string objectives;
  for (const auto& o : ptp::search_objective_names())
    objectives += (objectives.empty() ? "" : " | ") + std::string(o.name) +
                  (*o.description ? std::string(" (") + o.description + ")" : std::string());
  app.add_option("--objective", objective, "what --search minimises: " + objectives + " (default time)")
      ->check(CLI::IsMember(ptp::names_of(ptp::search_objective_names())))
      ->needs(search);
  app.add_option("--top", req.search_options.top, "rows --search prints (default 10)")
      ->check(CLI::Range(1, 100000))
      ->needs(search);
  app.add_option("--space", req.search_options.space_path,
                 "SPACE.yaml for --search: spec keys (as for --set) mapped to lists of values, each list replacing "
                 "the default axis (e.g. precision: [bf16, fp8]; cluster.num_gpus and cluster.gpu only when listed)")
      ->needs(search);
  req.threads = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 256u));
  app.add_option("--threads", req.threads,
                 "threads for --search and --sweep (default: this machine's cores); rows are identical for any count")
      ->check(CLI::Range(1, 256));
  app.add_option("--bundle", bundle, "learned model bundle directory (default: models/default when present)");
  app.add_flag("--analytical", analytical, "ignore any learned bundle");
  app.add_flag("--verbose", req.verbose, "print the session's cache hit rates (workloads, stages, op times, learned answers) on stderr");
  app.add_option("--config-dir", config_dir, "configs/ directory (GPU catalog, fabrics, model zoo)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "ptp-predict: error: " << ptp::one_line(e.what()) << "\n";
    return ptp::kExitBadInput;
  }
  if (describe_job_spec) {
    std::fputs(ptp::describe_job_spec_markdown().c_str(), stdout);
    return 0;
  }
  if (req.job_files.empty() && !*list) {
    std::cerr << "ptp-predict: error: jobs is required\n";
    return ptp::kExitBadInput;
  }
  try {
    if (config_dir.empty()) config_dir = ptp::config_root();
    if (*list) {
      if (bundle.empty() && !analytical) bundle = ptp::default_bundle_dir(config_dir);
      const auto listing = ptp::list_catalog(list_kind, config_dir, analytical ? "" : bundle);
      for (const auto& line : listing.lines) std::cout << line << "\n";
      std::cout.flush();
      if (!listing.note.empty()) std::cerr << "ptp-predict: note: " << listing.note << "\n";
      return 0;
    }
    // Removals first, so --unset finetune --set finetune.method=lora,... replaces a whole section.
    for (const auto& s : unsets) req.overrides.push_back(ptp::parse_unset(s));
    for (const auto& s : sets) req.overrides.push_back(ptp::parse_override(s));
    if (*emit_job) {
      std::string text;
      for (const auto& f : req.job_files)
        text += (text.empty() ? "" : "---\n") + ptp::merged_job_yaml(f, req.overrides);
      std::fwrite(text.data(), 1, text.size(), stdout);
      return 0;
    }
    for (const auto& s : sweeps) req.sweeps.push_back(ptp::parse_sweep_axis(s));
    if (max_hours >= 0) req.max_hours = max_hours;
    if (max_cost >= 0) req.max_cost = max_cost;
    if (max_kwh >= 0) req.max_kwh = max_kwh;
    req.search_options.objective = ptp::parse_search_objective(objective);
    if (bundle.empty() && !analytical) bundle = ptp::default_bundle_dir(config_dir);
    const ptp::Predictor predictor(config_dir, bundle, !analytical);
    const auto out = ptp::run_predictions(req, predictor);
    if (!req.trace_path.empty()) ptp::write_file_atomically(req.trace_path, out.trace_json);
    std::fwrite(out.stdout_text.data(), 1, out.stdout_text.size(), stdout);
    for (const auto& line : out.stderr_lines) std::cerr << "ptp-predict: " << line << "\n";
    return out.exit_code;
  } catch (const ptp::InputError& e) {
    std::cerr << "ptp-predict: error: " << e.what() << "\n";
    return ptp::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "ptp-predict: internal error: " << e.what() << "\n";
    return ptp::kExitInternalError;
  }
}
