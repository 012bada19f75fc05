#pragma once
// The fused-attention kernel families a training stack runs, one table (attention_kernel.cpp). The
// family matters on GPUs whose tensor cores a kernel must drive asynchronously to reach their peak
// (Hopper's wgmma/TMA, Blackwell's tcgen05): kernels written for Ampere's synchronous mma.sync run
// there well below the rate a native kernel reaches. A new kernel family is one table entry.
#include <string>
#include <string_view>
#include <vector>

namespace ptp::vocab {

struct AttentionKernel {
  std::string id;           // job-spec name: attention_kernel
  std::string description;  // which stacks run it
  std::string source;       // why it is classed as it is
  // Drives the asynchronous tensor-core path of sm_90 and newer GPUs (their native attention rate).
  bool architecture_native;
};

const std::vector<AttentionKernel>& attention_kernel_table();
const AttentionKernel* find_attention_kernel(std::string_view id);
std::vector<std::string> attention_kernel_ids();

// The first compute capability (x10) with an asynchronous tensor-core path that Ampere-style
// kernels leave unused.
inline constexpr int kAsyncTensorCoreSm = 90;

}  // namespace ptp::vocab
