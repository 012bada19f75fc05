// ptp-eval: the estimates against published measurements, as reports (docs/llm-evaluation.md,
// docs/memory-evaluation.md, docs/energy-evaluation.md are their output with prose around it).
// Nothing is fitted to the rows but the power cap's clock model, which the energy report refits and
// checks with each GPU left out. Exit codes: ptp/vocab/exit_codes.hpp.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

#include "../run_main.hpp"
#include "ptp/eval/energy_evaluation.hpp"
#include "ptp/eval/llm_evaluation.hpp"
#include "ptp/eval/memory_evaluation.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/hardware.hpp"
#include "ptp/vocab/version.hpp"

namespace {

// The published table `name` beside the configs/ folder the tools read (the repository's datasets/).
std::string dataset_beside_configs(const char* name) {
  return (std::filesystem::path(ptp::vocab::config_root()).parent_path() / "datasets" / name).string();
}

// NAME=VALUE of --constant.
std::pair<std::string, double> constant_setting(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos) throw ptp::vocab::InputError("--constant '" + text + "': expected NAME=VALUE");
  const std::string value = text.substr(eq + 1);
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0') throw ptp::vocab::InputError("--constant '" + text + "': VALUE is not a number");
  return {text.substr(0, eq), v};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ptp-eval: ptp's estimates against the published measurements in datasets/"};
  app.set_version_flag("--version", ptp::vocab::version_line("ptp-eval", ""));
  app.footer(ptp::vocab::exit_codes_help("ptp-eval"));
  app.require_subcommand(1);
  std::string config_dir;
  app.add_option("--config-dir", config_dir, "configs/ directory (GPU catalog, fabrics, model zoo)");

  ptp::eval::LlmEvaluationOptions llm;
  std::vector<std::string> constants;
  auto* llm_cmd = app.add_subcommand("llm", "step time of the published LLM throughput rows (runs.csv, analytical)");
  llm_cmd->add_option("--runs", llm.runs_csv, "runs.csv (default: datasets/runs.csv)");
  llm_cmd->add_option("--rows", llm.rows_csv, "also write the per-row predictions to this CSV");
  llm_cmd->add_option("--jobs", llm.jobs_dir, "also write each row as a job YAML into this folder");
  llm_cmd->add_option("--constant", constants,
                      "NAME=VALUE: a documented constant at another value (sensitivity; repeatable)");

  ptp::eval::MemoryEvaluationOptions memory;
  auto* memory_cmd = app.add_subcommand("memory", "per-GPU memory against the published peaks (memory.csv, analytical)");
  memory_cmd->add_option("--memory", memory.memory_csv, "memory.csv (default: datasets/memory.csv)");
  memory_cmd->add_option("--rows", memory.rows_csv, "also write the per-row breakdown to this CSV");
  memory_cmd->add_option("--jobs", memory.jobs_dir, "also write each evaluated row's job spec into this folder");
  memory_cmd->add_option("--stand-in-gpu", memory.stand_in_gpu,
                         "predict the rows whose GPU is not named on this GPU (a separate table)");

  ptp::eval::EnergyEvaluationOptions energy;
  auto* energy_cmd = app.add_subcommand("energy", "power and energy against the published power rows (power.csv)");
  energy_cmd->add_option("--power", energy.power_csv, "power.csv (default: datasets/power.csv)");
  energy_cmd->add_option("--bundle", energy.bundle_dir, "learned bundle (default: the analytical step model)");

  return ptp::cli::run_main("ptp-eval", app, argc, argv, [&] {
    if (config_dir.empty()) config_dir = ptp::vocab::config_root();
    if (*llm_cmd) {
      llm.config_dir = config_dir;
      if (llm.runs_csv.empty()) llm.runs_csv = dataset_beside_configs("runs.csv");
      for (const auto& c : constants) llm.constants.push_back(constant_setting(c));
      ptp::eval::report_llm_evaluation(llm, stdout, stderr);
    } else if (*memory_cmd) {
      if (memory.memory_csv.empty()) memory.memory_csv = dataset_beside_configs("memory.csv");
      const ptp::predict::Catalogs catalogs(config_dir);
      std::cout << "# ptp-eval memory: " << memory.memory_csv << "\n\n"
                << ptp::eval::evaluate_memory(memory, catalogs).markdown;
    } else if (*energy_cmd) {
      energy.config_dir = config_dir;
      if (energy.power_csv.empty()) energy.power_csv = dataset_beside_configs("power.csv");
      const auto e = ptp::eval::evaluate_energy(energy);
      std::cout << "# ptp-eval energy on " << energy.power_csv << " ("
                << (energy.bundle_dir.empty() ? std::string("analytical") : "learned bundle " + energy.bundle_dir)
                << " predictor)\n"
                << e.markdown;
    }
    return ptp::vocab::kExitOk;
  });
}
