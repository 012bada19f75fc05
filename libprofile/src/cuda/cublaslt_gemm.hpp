#pragma once
// cuBLASLt matmul shared by the GEMM and strided-batched GEMM benchmarks: D = A * B in the point's
// dtype, accumulating in FP32 (or FP16 when accum=fp16), FP8 in the TN layout cuBLASLt requires.
#include "ptp/profile/microbenchmark.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {

std::vector<AxisSpec> gemm_axes(bool batched);
Work describe_gemm(const Point& p, bool batched);
void run_gemm(const Point& p, Measurement& m, bool batched);

}  // namespace ptp::profile::cuda
