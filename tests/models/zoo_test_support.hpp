#pragma once
// Shared helpers for the model zoo tests.
#include <string>

#include "ptp/predict/model_zoo.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::test {

using namespace ptp::predict;

inline std::string models_dir() { return std::string(PTP_SOURCE_DIR) + "/configs/models"; }
inline std::string bad_models_dir() { return std::string(PTP_SOURCE_DIR) + "/tests/models/bad"; }
inline std::string hf_dir() { return std::string(PTP_SOURCE_DIR) + "/tests/data/hf"; }

// A batch a user would plausibly run per GPU; only the op list is built, so size is cheap.
inline double typical_batch(const ModelDesc& m) {
  if (m.sample_unit == "images") return 32;
  if (m.sample_unit == "sequences") return 8;
  if (m.sample_unit == "utterances") return 32;
  return 2048;  // recommender pairs / audio segments
}

inline Workload build(const ModelDesc& m, double batch, int seq_len) {
  BuildContext ctx;
  ctx.batch = batch;
  ctx.seq_len = m.sequence ? seq_len : 0;
  return build_workload(m, ctx);
}

// Multiply-accumulates of the GEMM/conv/RNN ops: what papers call "FLOPs" when they report MACs.
inline double gemm_macs(const Workload& w) {
  double macs = 0;
  for (const auto& op : w.ops)
    if (op.uses_gemm_math) macs += op.fwd_flops / 2;
  return macs;
}

}  // namespace ptp::test
