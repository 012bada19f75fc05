// ptp-predict: predicted training time for YAML job specs. Exit codes: ptp/vocab/exit_codes.hpp.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <thread>

#include "../cli_number.hpp"
#include "../run_main.hpp"
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

namespace {

// What the command line asked for, before run() turns it into a PredictRequest.
struct CommandLine {
  ptp::predict::PredictRequest req;
  std::vector<std::string> sets, unsets, sweeps;
  std::string bundle, config_dir, list_kind, objective = "time";
  bool analytical = false, describe_job_spec = false;
  double max_hours = -1, max_cost = -1, max_kwh = -1;
  CLI::Option* list = nullptr;
  CLI::Option* emit_job = nullptr;
};

// The jobs, what to print instead of predicting them, and how they are changed.
void add_job_options(CLI::App& app, CommandLine& cl) {
  auto* jobs = app.add_option("jobs", cl.req.job_files, "job spec YAML file(s)");
  app.add_flag("--describe-job-spec", cl.describe_job_spec,
               "print the reference of every job-spec field as Markdown (docs/job-spec.md) and exit")
      ->excludes(jobs);
  std::string kinds;
  for (const auto& k : ptp::predict::listing_kinds()) kinds += (kinds.empty() ? "" : " | ") + k;
  cl.list = app.add_option("--list", cl.list_kind,
                 "print what a job can name, one line per entry, sorted, and exit: " + kinds +
                     " (GPUs with memory, peak TFLOP/s per precision and catalog price; models with parameters)")
      ->excludes(jobs);
  cl.emit_job = app.add_flag("--emit-job", "print each job as read, with --set/--unset applied, as a job file "
                                              "(YAML; predicting it gives the same answer) and exit");
  std::string formats;
  for (const auto& f : ptp::predict::output_format_names()) formats += (formats.empty() ? "" : " | ") + f;
  app.add_option("--format", cl.req.format, formats)->check(CLI::IsMember(ptp::predict::output_format_names()));
  app.add_option("--set", cl.sets, "override a spec field: key=value (repeatable)");
  app.add_option("--unset", cl.unsets, "remove a spec field before --set applies: dotted key (repeatable)");
  app.add_option("--sweep", cl.sweeps, "sweep a field: key=v1,v2,... (repeatable; cross-product)");
}

// The limits a CI gate checks, and what a prediction is calibrated on or writes beside it.
void add_gate_options(CLI::App& app, CommandLine& cl) {
  app.add_option("--max-hours", cl.max_hours, "exit 3 when the predicted wall time exceeds H hours")->check(ptp::cli::number_in(0, 1e9));
  app.add_option("--max-cost", cl.max_cost, "exit 3 when the predicted cost exceeds USD")->check(ptp::cli::number_in(0, 1e15));
  app.add_option("--max-kwh", cl.max_kwh,
                 "exit 3 when the run's predicted facility energy (GPU boards + node share, x PUE) exceeds kWh")
      ->check(ptp::cli::number_in(0, 1e15));
  app.add_flag("--require-fit", cl.req.require_fit,
               "exit 4 when a job or any sweep row (the best row of a search) does not fit in GPU memory with the "
               "estimate's headroom to spare");
  app.add_option("--trace", cl.req.trace_path, "write the predicted step as a Chrome/Perfetto trace JSON");
  app.add_option("--calibrate", cl.req.calibrate_path,
                 "MEASURED.csv (columns job, step_time_s): fit the prediction to your stack's measured steps");
  auto* calibrate_log = app.add_option("--calibrate-log", cl.req.calibrate_logs,
                 "TRAINING.log of the job file as written (Megatron-LM, NeMo, torchtitan, HF Trainer, Lightning, "
                 "MLPerf MLLOG or a step_time_s CSV): its steady-state step calibrates every prediction (repeatable)");
  std::string log_formats;
  for (const auto& f : ptp::predict::log_format_names()) log_formats += (log_formats.empty() ? "" : " | ") + std::string(f.name);
  app.add_option("--log-format", cl.req.log_format, "the --calibrate-log format: " + log_formats + " (default: recognised)")
      ->check(CLI::IsMember(ptp::vocab::names_of(ptp::predict::log_format_names())))
      ->needs(calibrate_log);
}

void add_search_options(CLI::App& app, CommandLine& cl) {
  auto* search = app.add_flag("--search", cl.req.search,
                              "rank configurations around the job (precision, layout, sharding, recompute, micro-batch "
                              "at a fixed global batch) that fit in memory; --format json prints one object "
                              "{search: counts, job, rows: [...]}, jsonl/csv one record per row");
  std::string objectives;
  for (const auto& o : ptp::predict::search_objective_names())
    objectives += (objectives.empty() ? "" : " | ") + std::string(o.name) +
                  (*o.description ? std::string(" (") + o.description + ")" : std::string());
  app.add_option("--objective", cl.objective, "what --search minimises: " + objectives + " (default time)")
      ->check(CLI::IsMember(ptp::vocab::names_of(ptp::predict::search_objective_names())))
      ->needs(search);
  app.add_option("--top", cl.req.search_options.top, "rows --search prints (default 10)")
      ->check(CLI::Range(1, 100000))
      ->needs(search);
  app.add_option("--space", cl.req.search_options.space_path,
                 "SPACE.yaml for --search: spec keys (as for --set) mapped to lists of values, each list replacing "
                 "the default axis (e.g. precision: [bf16, fp8]; cluster.num_gpus and cluster.gpu only when listed)")
      ->needs(search);
}

// Threads, bundle and catalogs: how the session answers, never what it answers.
void add_session_options(CLI::App& app, CommandLine& cl) {
  cl.req.threads = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 256u));
  app.add_option("--threads", cl.req.threads,
                 "threads for --search and --sweep (default: this machine's cores); rows are identical for any count")
      ->check(CLI::Range(1, 256));
  app.add_option("--bundle", cl.bundle, "learned model bundle directory (default: models/default when present)");
  app.add_flag("--analytical", cl.analytical, "ignore any learned bundle");
  app.add_flag("--verbose", cl.req.verbose, "print the session's cache hit rates (workloads, stages, op times, learned answers) on stderr");
  app.add_option("--config-dir", cl.config_dir, "configs/ directory (GPU catalog, fabrics, model zoo)");
}

int run(CommandLine& cl) {
  if (cl.describe_job_spec) {
    std::fputs(ptp::predict::describe_job_spec_markdown().c_str(), stdout);
    return 0;
  }
  if (cl.req.job_files.empty() && !*cl.list) throw ptp::vocab::InputError("jobs is required");
  if (cl.config_dir.empty()) cl.config_dir = ptp::vocab::config_root();
  if (*cl.list) {
    if (cl.bundle.empty() && !cl.analytical) cl.bundle = ptp::predict::default_bundle_dir(cl.config_dir);
    const auto listing = ptp::predict::list_catalog(cl.list_kind, cl.config_dir, cl.analytical ? "" : cl.bundle);
    for (const auto& line : listing.lines) std::cout << line << "\n";
    std::cout.flush();
    if (!listing.note.empty()) std::cerr << "ptp-predict: note: " << listing.note << "\n";
    return 0;
  }
  cl.req.overrides = ptp::predict::parse_overrides(cl.unsets, cl.sets);
  if (*cl.emit_job) {
    std::string text;
    for (const auto& f : cl.req.job_files)
      text += (text.empty() ? "" : "---\n") + ptp::predict::merged_job_yaml(f, cl.req.overrides);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  for (const auto& s : cl.sweeps) cl.req.sweeps.push_back(ptp::predict::parse_sweep_axis(s));
  if (cl.max_hours >= 0) cl.req.max_hours = cl.max_hours;
  if (cl.max_cost >= 0) cl.req.max_cost = cl.max_cost;
  if (cl.max_kwh >= 0) cl.req.max_kwh = cl.max_kwh;
  cl.req.search_options.objective = ptp::predict::parse_search_objective(cl.objective);
  if (cl.bundle.empty() && !cl.analytical) cl.bundle = ptp::predict::default_bundle_dir(cl.config_dir);
  const ptp::predict::Predictor predictor(cl.config_dir, cl.bundle, !cl.analytical);
  const auto out = ptp::predict::run_predictions(cl.req, predictor);
  if (!cl.req.trace_path.empty()) ptp::vocab::write_file_atomically(cl.req.trace_path, out.trace_json);
  std::fwrite(out.stdout_text.data(), 1, out.stdout_text.size(), stdout);
  for (const auto& line : out.stderr_lines) std::cerr << "ptp-predict: " << line << "\n";
  return out.exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ptp-predict: precision-aware training-time prediction from a YAML job spec"};
  app.set_version_flag("--version", ptp::vocab::version_line("ptp-predict", "bundle schema " + std::to_string(ptp::predict::kBundleSchemaVersion) + ", dataset schema " + ptp::vocab::kDatasetSchemaVersion + ", output schema " + std::to_string(ptp::predict::kOutputSchemaVersion)));
  app.footer(ptp::vocab::exit_codes_help("ptp-predict"));
  CommandLine cl;
  add_job_options(app, cl);
  add_gate_options(app, cl);
  add_search_options(app, cl);
  add_session_options(app, cl);
  return ptp::cli::run_main("ptp-predict", app, argc, argv, [&] { return run(cl); });
}
