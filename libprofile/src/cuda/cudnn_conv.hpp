#pragma once
// cuDNN 9 convolutions through the graph (backend) API, shared by the forward, backward-data and
// backward-filter benchmarks: build a one-operation graph, keep the heuristic engine configs whose
// numerical notes match the math mode (FP32: no tensor cores; TF32: tensor cores), take the first
// that finalizes and executes, and time cudnnBackendExecute.
#include "ptp/profile/microbenchmark.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {

enum class ConvKind { fwd, bwd_data, bwd_filter };

std::vector<AxisSpec> conv_axes();
Work describe_conv(const Point& p, ConvKind kind);
void run_conv(const Point& p, Measurement& m, ConvKind kind);

}  // namespace ptp::profile::cuda
