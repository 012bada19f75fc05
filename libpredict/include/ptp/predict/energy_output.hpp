#pragma once
// The `energy` part of every output format, kept here so the printers each add one call.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptp/predict/prediction.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

nlohmann::json energy_json(const EnergyEstimate& e);  // null when not valid
std::string energy_text(const Prediction& p);         // table lines ("energy ..."), "" when not valid
const std::vector<std::string>& energy_csv_header();
std::vector<std::string> energy_csv_cells(const EnergyEstimate& e);
// Chrome-trace counter events ("board power, W per GPU") for the traced step: the kernels' mix of
// compute- and memory-bound power until kernels_end_s, waiting power through the bubble and exposed
// communication, memory-bound power from optimizer_start_s to the end of the step.
void append_energy_counters(const Prediction& p, nlohmann::json& events, double kernels_end_s,
                            double optimizer_start_s);

}  // namespace ptp::predict
