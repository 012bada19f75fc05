#pragma once
// Small helpers shared by the host microbenchmarks.
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "ptp/profile/measurement.hpp"
#include "ptp/profile/row.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::host {

// Allocation that reports failure as a point row instead of killing the sweep.
template <typename T>
std::vector<T> allocate(std::size_t count, const char* what) {
  try {
    return std::vector<T>(count, T(1));
  } catch (const std::bad_alloc&) {
    throw PointFailure(PointStatus::failed, std::string("out of memory allocating ") + what + " (" +
                                     format_number(static_cast<double>(count * sizeof(T))) + " B)");
  }
}

// Evicts the caches for cold runs by streaming through a buffer larger than any last-level cache.
void flush_caches();

void require_fp32(const std::string& dtype);  // the host backend measures fp32 only
// Work::unsupported of a host point of this dtype: "" for fp32, else "<dtype> not run by the host
// backend (fp32 only)".
std::string fp32_only(const std::string& dtype);

}  // namespace ptp::profile::host
