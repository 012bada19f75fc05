#include <catch2/catch.hpp>

#include "ptp/profile/comm.hpp"
#include "ptp/profile/cuda_device.hpp"
#include "ptp/profile/microbenchmark.hpp"

using namespace ptp::profile;

TEST_CASE("every microbenchmark file registered itself", "[registry]") {
#ifdef PTP_TEST_HAVE_CUDA
  std::string why;
  const bool loaded = cuda::load(&why);  // the CUDA benchmarks register when the plugin loads
  INFO(why);
  REQUIRE(loaded);
#endif
  const auto names = Registry::instance().names();
  std::vector<std::string> expected = {"host_elementwise", "host_gemm", "host_membw", "host_reduction",
                                       "host_all_reduce"};
#ifdef PTP_TEST_HAVE_CUDA
  for (const char* n : {"cublaslt_gemm", "cublaslt_batched_gemm", "cudnn_conv_fwd", "cudnn_conv_bwd_data",
                        "cudnn_conv_bwd_filter", "cuda_elementwise", "cuda_layernorm", "cuda_softmax",
                        "cuda_reduction", "cuda_embedding", "cuda_optimizer", "cuda_amp_unscale", "cuda_cast",
                        "nccl_all_reduce", "nccl_reduce_scatter", "nccl_all_gather", "nccl_broadcast",
                        "nccl_send_recv"})
    expected.push_back(n);
#endif
  for (const auto& e : expected) {
    INFO(e);
    CHECK(std::find(names.begin(), names.end(), e) != names.end());
  }
  for (const auto* b : Registry::instance().all()) {
    INFO(b->name());
    CHECK_FALSE(b->axes().empty());
    CHECK((b->backend() == Backend::cuda) == (b->name().rfind("host_", 0) != 0));
  }
}
