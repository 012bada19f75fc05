// The one table of output formats: a new format is one entry here plus its printer.
#include "ptp/predict/output.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {

std::string json_one(const std::vector<SweepRow>& rows, bool) {
  if (rows.size() != 1)
    throw InputError("--format json prints one object; use --format jsonl or csv for several jobs or a sweep");
  return render_json(rows.front().prediction);
}

std::string table(const std::vector<SweepRow>& rows, bool sweep) {
  if (sweep) return render_sweep_table(rows);
  std::string out;
  for (std::size_t i = 0; i < rows.size(); ++i) out += (i ? "\n" : "") + render_table(rows[i].prediction);
  return out;
}

std::string jsonl(const std::vector<SweepRow>& rows, bool) { return render_jsonl(rows); }
std::string csv(const std::vector<SweepRow>& rows, bool) { return render_csv(rows); }
std::string slurm(const std::vector<SweepRow>& rows, bool) {
  if (rows.size() != 1) throw InputError("--format slurm prints the #SBATCH lines of one job; give one job file and no sweep");
  return render_slurm(rows.front().prediction);
}

}  // namespace

const std::vector<OutputFormat>& output_formats() {
  static const std::vector<OutputFormat> formats = {
      {"table", "readable report per job; one line per row for a sweep", table},
      {"json", "one pretty JSON object (exactly one job, no sweep)", json_one},
      {"jsonl", "one compact JSON object per job or sweep row", jsonl},
      {"csv", "header plus one line per job or sweep row", csv},
      {"slurm", "#SBATCH --time/--nodes/--gpus-per-node of one job, with how they were derived", slurm},
  };
  return formats;
}

std::vector<std::string> output_format_names() {
  std::vector<std::string> names;
  for (const auto& f : output_formats()) names.emplace_back(f.name);
  return names;
}

const OutputFormat& find_output_format(const std::string& name) {
  std::string expected;
  for (const auto& f : output_formats()) {
    if (name == f.name) return f;
    expected += std::string(expected.empty() ? "" : " | ") + f.name;
  }
  throw InputError("--format '" + name + "': expected " + expected);
}

}  // namespace ptp::predict
