#include "host_buffers.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::host {

namespace {
volatile std::uint8_t g_flush_sink = 0;  // keeps the flush loop from being optimised away
}  // namespace

void flush_caches() {
  static std::vector<std::uint8_t> junk(std::size_t{256} << 20, 1);
  std::uint8_t acc = 0;
  for (std::size_t i = 0; i < junk.size(); i += 64) {
    junk[i] = static_cast<std::uint8_t>(junk[i] + 1);
    acc = static_cast<std::uint8_t>(acc ^ junk[i]);
  }
  g_flush_sink = acc;
}

std::string fp32_only(const std::string& dtype) {
  return dtype == "fp32" ? "" : dtype + " not run by the host backend (fp32 only)";
}

void require_fp32(const std::string& dtype) {
  if (dtype != "fp32")
    throw PointFailure(PointStatus::unsupported, "the host backend measures fp32 only (dtype " + dtype + ")");
}

}  // namespace ptp::profile::host
