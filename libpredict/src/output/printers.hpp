#pragma once
// The printers formats.cpp registers, one per format, each in its own <format>_printer.cpp.
#include "ptp/predict/output.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::printers {

const Printer& table();
const Printer& json();
const Printer& jsonl();
const Printer& csv();
const Printer& slurm();

}  // namespace ptp::predict::printers
