#pragma once
// Shared by the fuzz targets: the oracle every entry point must satisfy on any input is
//   * return normally, or throw ptp::vocab::InputError (what the CLIs turn into exit 2 + one line);
//   * that message is one non-empty line of bounded length naming the input;
//   * no crash, sanitizer report, leak, hang (libFuzzer -timeout) or unbounded allocation
//     (-rss_limit_mb / -malloc_limit_mb); any other exception escapes and aborts = a finding;
//   * predictions made from accepted input are finite and non-negative.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include <unistd.h>

#include "ptp/predict/analytical.hpp"
#include "ptp/predict/output.hpp"
#include "ptp/predict/resolved_job.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/yaml_reader.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::fuzz {

using namespace ptp::predict;

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "FUZZ FINDING: %s\n", what.c_str());
  std::abort();
}

inline std::string config_dir() {
  if (const char* env = std::getenv("PTP_CONFIG_DIR"); env && *env) return env;
  return std::string(PTP_SOURCE_DIR) + "/configs";
}

inline const Catalogs& catalogs() {
  static const Catalogs c(config_dir());
  return c;
}

// A scratch file of this fuzzer process (its directory is created once): targets whose entry point
// reads a path write the input there.
inline std::string scratch_path(const std::string& name) {
  static const std::filesystem::path dir = [] {
    const auto d = std::filesystem::temp_directory_path() / ("ptp-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return (dir / name).string();
}

// True when a job document's `model:` is a file path rather than a zoo id: a path would make the
// fuzzer read arbitrary files (model_yaml fuzzes model files instead).
inline bool model_is_a_path(const std::string& job_text) {
  try {
    const auto doc = YamlReader::load_string(job_text, "pre-scan");
    if (!doc.is_map() || !doc.has("model") || !doc.child("model").is_scalar()) return false;
    const std::string m = doc.child("model").as_string();
    return m.find('/') != std::string::npos || m.find(".yaml") != std::string::npos ||
           m.find(".yml") != std::string::npos || m.find(".json") != std::string::npos;
  } catch (const InputError&) {
    return false;
  }
}

// The message of a rejected input as the CLI prints it.
inline void check_message(const std::string& msg, const std::string& must_name) {
  if (msg.empty()) finding("empty error message");
  if (msg.find('\n') != std::string::npos || msg.find('\r') != std::string::npos)
    finding("multi-line error message: " + msg);
  if (msg.size() > 4096) finding("error message longer than 4096 bytes");
  if (!must_name.empty() && msg.find(must_name) == std::string::npos)
    finding("error message does not name the input '" + must_name + "': " + msg);
}

template <typename Body>
void expect_clean(const std::string& name, Body&& body) {
  try {
    body();
  } catch (const InputError& e) {
    check_message(e.what(), name);
  }
}

inline void check_finite(const char* what, double v) {
  if (!std::isfinite(v) || v < 0) finding(std::string("prediction field ") + what + " = " + std::to_string(v));
}

inline void check_prediction(const Prediction& p) {
  check_finite("iteration_s", p.iteration_s);
  check_finite("iteration_high_s", p.iteration_high_s);
  check_finite("samples_per_second", p.samples_per_second);
  check_finite("total_seconds", p.total_seconds);
  check_finite("memory.per_gpu_bytes", p.memory.per_gpu_bytes);
  const auto& b = p.breakdown;
  for (double v : {b.forward, b.backward, b.optimizer, b.communication, b.communication_exposed, b.loss_scaling})
    check_finite("breakdown", v);
}

// Renders everything the CLI can print for a prediction (table, json, csv, trace).
inline void render_all(const Prediction& p) {
  (void)render_table(p);
  (void)render_json(p);
  (void)render_csv({SweepRow{{}, p}});
  (void)render_chrome_trace(p);
}

// Predicts `model` built at a small batch on fixed, valid hardware (16 GPUs in two nodes, data
// parallel, with gradient accumulation), so every part of the analytical model sees the graph.
inline Prediction predict_small(const ModelDesc& model, const GpuSpec& gpu, const FabricSpec& fabric,
                                const PrecisionPolicy& policy, const Workload* workload = nullptr) {
  ResolvedJob r;
  r.job.file = "fuzz-job.yaml";
  r.job.model = model.id;
  r.job.precision = policy.id;
  r.job.batch_size = 2;
  r.job.seq_len = 64;
  r.job.grad_accum = 2;
  r.job.cluster.gpu = gpu.id;
  r.job.cluster.num_gpus = 16;
  r.job.cluster.gpus_per_node = 8;
  r.job.cluster.inter_node = fabric.id;
  r.job.run.steps = 1000;
  r.job.usd_per_gpu_hour = 2.0;
  r.gpu = &gpu;
  r.price.source = r.price.label = "job", r.price.usd_per_gpu_hour = 2.0;
  r.fabric = &fabric;
  r.policy = &policy;
  r.model = &model;
  BuildContext ctx;
  ctx.batch = r.job.batch_size;
  ctx.seq_len = r.job.seq_len;
  r.workload = workload ? *workload : build_workload(model, ctx);
  r.gpus_per_node = 8;
  r.nodes = 2;
  r.data_parallel = 16;
  r.samples_per_step = r.job.batch_size * r.job.grad_accum * r.data_parallel;
  Prediction p = predict_analytical(r);
  check_prediction(p);
  render_all(p);
  return p;
}

}  // namespace ptp::fuzz
