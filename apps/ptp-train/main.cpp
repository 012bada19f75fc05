// ptp-train: fit the hierarchical precision-aware models on datasets/ and write a bundle + report.
// Exit codes: ptp/vocab/exit_codes.hpp.
#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>

#include "../run_main.hpp"
#include "ptp/train/trainer.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/exit_codes.hpp"
#include "ptp/vocab/hardware.hpp"
#include "ptp/predict/learned/bundle.hpp"
#include "ptp/vocab/dataset_schema.hpp"
#include "ptp/vocab/version.hpp"

int main(int argc, char** argv) {
  CLI::App app{"ptp-train: hierarchical XGBoost models (compute, communication, aggregator) from datasets/"};
  app.set_version_flag("--version", ptp::vocab::version_line("ptp-train", "bundle schema " + std::to_string(ptp::predict::kBundleSchemaVersion) + ", dataset schema " + ptp::vocab::kDatasetSchemaVersion));
  app.footer(ptp::vocab::exit_codes_help("ptp-train"));
  ptp::train::TrainOptions options;
  bool quiet = false, no_cv = false;
  app.add_option("--data", options.data_dir, "dataset folder with runs.csv, ops/ (or ops.csv), collectives.csv");
  app.add_option("--out", options.out_dir, "bundle directory to write (replaced atomically)");
  app.add_option("--config-dir", options.config_dir, "configs/ directory (GPU catalog, fabrics, model zoo)");
  app.add_flag("--blind", options.blind, "train the aggregator without precision information (ablation)");
  app.add_option("--seed", options.seed, "random seed (training is deterministic for a given seed)");
  app.add_option("--threads", options.threads, "XGBoost threads")->check(CLI::Range(1, 256));
  app.add_flag("--no-cv", no_cv, "skip cross-validation (faster; the report then has no CV figures)");
  app.add_flag("-q,--quiet", quiet, "no progress lines");
  app.add_option("--export-rows", options.export_rows,
                 "also write the aggregator's training rows (features, target, codebase, stack) to this CSV");
  return ptp::cli::run_main("ptp-train", app, argc, argv, [&] {
    options.cross_validate = !no_cv;
    const auto start = std::chrono::steady_clock::now();
    if (!quiet) options.log = [&](const std::string& line) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::cerr << "[" << static_cast<int>(s) << " s] " << line << "\n";
    };
    const auto result = ptp::train::train_bundle(options);
    std::cout << result.report_markdown;
    std::cout << "\nbundle written to " << options.out_dir << " (report in " << options.out_dir << "/report/)\n";
    return ptp::vocab::kExitOk;
  });
}
