// ptp_eval_energy: the energy estimate (libpredict energy.hpp) against the published power rows of
// datasets/power.csv that can be stated as a job spec (libtrain energy_evaluation.cpp, which
// ptp-train also runs for its report), as markdown tables of the error per source and GPU
// (docs/energy-evaluation.md is this program's output, with prose around it).
//
//   ptp_eval_energy [--power datasets/power.csv] [--config-dir configs] [--bundle DIR]
#include <iostream>
#include <string>

#include "ptp/train/energy_evaluation.hpp"
#include "ptp/vocab/error.hpp"

int main(int argc, char** argv) {
  ptp::train::EnergyEvaluationOptions o;
  o.power_csv = std::string(PTP_SOURCE_DIR) + "/datasets/power.csv";
  o.config_dir = std::string(PTP_SOURCE_DIR) + "/configs";
  for (int i = 1; i < argc; i += 2) {
    const std::string a = argv[i];
    if (i + 1 < argc && a == "--power") o.power_csv = argv[i + 1];
    else if (i + 1 < argc && a == "--config-dir") o.config_dir = argv[i + 1];
    else if (i + 1 < argc && a == "--bundle") o.bundle_dir = argv[i + 1];
    else {
      std::cerr << "usage: ptp_eval_energy [--power CSV] [--config-dir DIR] [--bundle DIR]\n";
      return 2;
    }
  }
  try {
    const auto e = ptp::train::evaluate_energy(o);
    std::cout << "# ptp_eval_energy on " << o.power_csv << " ("
              << (o.bundle_dir.empty() ? std::string("analytical") : "learned bundle " + o.bundle_dir) << " predictor)\n"
              << e.markdown;
  } catch (const ptp::InputError& e) {
    std::cerr << "ptp_eval_energy: error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
