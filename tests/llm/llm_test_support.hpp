#pragma once
// Shared helpers for the LLM tests: catalogs, a job-spec builder for a Llama-style job, and
// prediction / error capture, an op by name.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ptp/predict/detail/parallelism.hpp"
#include "ptp/predict/analytical.hpp"
#include "ptp/predict/job_spec.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::test {

using namespace ptp::predict;

inline const Catalogs& catalogs() {
  static const Catalogs c(std::string(PTP_SOURCE_DIR) + "/configs");
  return c;
}

// A job spec for `model` on `gpus` x `gpu` with the given layout line, e.g.
// "parallelism: {tensor: 4, pipeline: 2}\nsequence_parallel: true\n".
inline std::string llm_job(const std::string& model, int gpus, const std::string& layout,
                           const std::string& precision = "bf16", const std::string& gpu = "h100-sxm5-80gb",
                           int seq_len = 4096, int global_batch = 0) {
  std::string y = "model: " + model + "\nprecision: " + precision + "\nbatch_size: 1\nseq_len: " +
                  std::to_string(seq_len) + "\n";
  if (global_batch > 0) y += "global_batch_size: " + std::to_string(global_batch) + "\n";
  y += "cluster: {gpu: " + gpu + ", num_gpus: " + std::to_string(gpus) + "}\n" + layout;
  return y;
}

inline ResolvedJob resolve(const std::string& yaml) {
  return resolve_job(parse_job_spec(YamlReader::load_string(yaml, "job.yaml")), catalogs());
}

inline Prediction predict(const std::string& yaml) { return predict_analytical(resolve(yaml)); }

// The InputError message resolving `yaml` raises, or "" when it resolves.
inline std::string error_of(const std::string& yaml) {
  try {
    resolve(yaml);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The op of a workload named `name` (e.g. "layer0.self_attn_qkv"); fails the test when there is none.
inline const Op& op_named(const std::vector<Op>& ops, const std::string& name) {
  const auto it = std::find_if(ops.begin(), ops.end(), [&](const Op& o) { return o.name == name; });
  if (it == ops.end()) FAIL("no op " << name);
  return *it;
}

}  // namespace ptp::test
