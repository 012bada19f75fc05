#include <catch2/catch.hpp>

#include <cctype>

#include "ptp/profile/columns.hpp"
#include "ptp/profile/comm.hpp"
#include "ptp/profile/context.hpp"
#include "ptp/profile/cuda_device.hpp"

using namespace ptp::profile;

TEST_CASE("host context fills documented ctx_ columns", "[context]") {
  const Row ctx = capture_host_context();
  const auto cols = context_columns();
  for (const auto& [k, v] : ctx) CHECK(std::find(cols.begin(), cols.end(), k) != cols.end());
  CHECK_FALSE(ctx.at("ctx_hostname").empty());
  CHECK(std::stoi(ctx.at("ctx_cpus")) >= 1);
  CHECK(std::string(ptp_version()).rfind("0.", 0) == 0);
  CHECK(ctx.at("ctx_ptp_version") == ptp_version());
  if (Comm::compiled_with_mpi()) CHECK_FALSE(ctx.at("ctx_mpi").empty());
  // YYYY-MM-DDTHH:MM:SSZ (checked by hand: std::regex trips a GCC 12 -Wmaybe-uninitialized under ASan)
  const std::string ts = utc_timestamp();
  const std::string pattern = "dddd-dd-ddTdd:dd:ddZ";
  REQUIRE(ts.size() == pattern.size());
  for (std::size_t i = 0; i < ts.size(); ++i)
    CHECK((pattern[i] == 'd' ? std::isdigit(static_cast<unsigned char>(ts[i])) != 0 : ts[i] == pattern[i]));
}

TEST_CASE("CUDA context degrades to 'no device' without a GPU or driver", "[context]") {
  std::string why;
  const int n = cuda::device_count(&why);
  if (n == 0) CHECK_FALSE(why.empty());
  const std::string versions = cuda::library_versions();  // never needs a device
  CHECK_FALSE(versions.empty());
#ifdef PTP_TEST_HAVE_CUDA
  CHECK(versions.find("cudnn=9") != std::string::npos);
  CHECK(versions.find("nccl=") != std::string::npos);  // ncclGetVersion works without a GPU
  if (n > 0) CHECK_FALSE(cuda::capture_context(0).at("ctx_gpu_name").empty());
#endif
}
