#pragma once
// launch: in a job file names what the user ran: a Megatron-LM argument list (launch.megatron_args) or
// a torchtitan TOML job config (launch.torchtitan_toml). Its values fill the job's fields under the
// job's own (a field the job gives wins, with a warning when the two differ), and a job without
// model: runs the model the launch file describes. docs/launch-import.md lists every flag and key.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ptp/predict/job_spec.hpp"
#include "ptp/vocab/yaml_reader.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

class Catalogs;  // resolved_job.hpp

// One job field a launch file sets.
struct LaunchValue {
  std::string key;   // the job field, dotted ("parallelism.tensor")
  std::string text;  // its value as --set text ("8"; a list as "a,b")
  // What the file said: "--tensor-model-parallel-size 8", "[parallelism] tensor_parallel_degree = 8".
  std::string source;
  std::string where;  // "file:line:col"; the file alone for a value that follows from a flag left out
};

// A size of the model as the launch file gives it, for checking a model: the job names.
struct LaunchDim {
  std::string param;  // transformer model parameter (configs/models): layers, hidden, heads, ...
  double value = 0;
  std::string source, where;
};

// What one launch file says.
struct LaunchRead {
  std::string file;
  std::vector<LaunchValue> values;  // in the order the file gives them
  std::vector<LaunchDim> dims;
  // A model YAML document (configs/models form) when the file defines the whole model by its sizes;
  // a file that names a zoo model instead (torchtitan's [model] flavor) gives it as a `model` value.
  std::string model_yaml;
  std::string model_missing;  // why the file gives no model ("no --vocab-size or --padded-vocab-size")
  std::vector<std::string> warnings;
};

// The readers; every refusal is an InputError "file:line:col: flag: problem".
LaunchRead read_megatron_args(const std::string& path);
LaunchRead read_torchtitan_toml(const std::string& path);
// What the readers read: every Megatron flag and every torchtitan key (dotted), from their tables.
std::vector<std::string> megatron_flags_read();
std::vector<std::string> torchtitan_keys_read();

// What a job's launch file gave it (JobSpec::imported).
struct LaunchImport {
  std::string file;
  std::string model_yaml;  // the model the job runs: the file's, when the job names none ("" otherwise)
  std::vector<LaunchDim> dims;
  std::vector<std::string> fields;    // keys the file gave: --emit-job writes each, so its output reads alone
  std::vector<std::string> warnings;  // what reading the job found (contradictions, flags not read)
};

// The job's launch file (launch: in `doc`), its path resolved against the job's folder, or nothing
// when the job has none. job_spec.cpp reads it before the job's fields, so that a required field
// the file gives (launch_given_keys) may be left out of the job, and merges it after them.
std::optional<LaunchRead> read_job_launch(const YamlReader& doc, JobSpec& job);
std::vector<std::string> launch_given_keys(const LaunchRead& launch);
// The launch file's values set in the fields the job leaves out; returns the keys it set.
std::vector<std::string> merge_launch(const YamlReader& doc, const LaunchRead& launch, JobSpec& job);
// The launch file gave the field: --emit-job writes it (the job's value where the job has one), so
// the emitted job predicts the same when the launch file is read again under it.
bool launch_gave(const JobSpec& job, const std::string& key);

// The job runs the model its launch file defines (JobSpec::model is then that model's id).
bool launch_defines_model(const JobSpec& job);

// What reading the job warned about, and where its model: contradicts the launch file's sizes (the
// model is looked up in `catalogs`; one that does not load is left to the prediction to report).
std::vector<std::string> job_warnings(const JobSpec& job, const Catalogs& catalogs);

}  // namespace ptp::predict
