#pragma once
// Host-and-device helpers of the hand-written CUDA kernels, usable from plain C++ (tests) too:
// the counter hash behind the random input fill, and the 16-byte vector split of a 1-D range.
#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define PTP_HD __host__ __device__ __forceinline__
#else
#define PTP_HD inline
#endif

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::kernel_math {

// Stateless 32-bit hash of (index, seed) (lowbias32 finaliser): element i of a buffer gets the same
// value on every run, different seeds give unrelated streams.
PTP_HD std::uint32_t hash32(std::uint64_t i, std::uint32_t seed) {
  std::uint32_t x = static_cast<std::uint32_t>(i) ^ (static_cast<std::uint32_t>(i >> 32) * 0x9E3779B9u) ^
                    (seed * 0x85EBCA6Bu + 0x27D4EB2Fu);
  x ^= x >> 16;
  x *= 0x7FEB352Du;
  x ^= x >> 15;
  x *= 0x846CA68Bu;
  x ^= x >> 16;
  return x;
}

// Uniform in [lo, hi] from the top 24 bits of the hash (exact in fp32).
PTP_HD float uniform(std::uint64_t i, std::uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  const float u = static_cast<float>(hash32(i, seed) >> 8) * (1.0f / 16777215.0f);
  return lo + (hi - lo) * u;
}

// Elements per 16-byte vector of `elem_bytes`-wide elements (1 for wider elements).
PTP_HD constexpr int vec_elems(int elem_bytes) { return elem_bytes >= 16 ? 1 : 16 / elem_bytes; }

// A range of n elements as whole vectors of `width` elements plus a scalar tail (the last
// n % width elements). Buffers come from cudaMalloc (256-byte aligned), so vector i is aligned.
struct VecSplit {
  std::size_t vectors;    // whole vectors
  std::size_t tail_begin; // first element of the scalar tail (= vectors * width)
};
PTP_HD constexpr VecSplit vec_split(std::size_t n, int width) {
  return {n / static_cast<std::size_t>(width), n / static_cast<std::size_t>(width) * static_cast<std::size_t>(width)};
}

}  // namespace ptp::profile::kernel_math
