// Embedding gather: tokens rows of width dim picked from a vocab x dim table by index.
#include "../kernel_common.cuh"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {
namespace {

template <typename T>
__global__ void gather_kernel(const T* table, const int* ids, T* out, std::size_t tokens, int dim) {
  const std::size_t n = tokens * static_cast<std::size_t>(dim);
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    const std::size_t t = i / static_cast<std::size_t>(dim), c = i % static_cast<std::size_t>(dim);
    out[i] = table[static_cast<std::size_t>(ids[t]) * static_cast<std::size_t>(dim) + c];
  }
}

__global__ void fill_ids(int* ids, std::size_t tokens, int vocab) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < tokens; i += std::size_t{gridDim.x} * blockDim.x)
    ids[i] = static_cast<int>((i * 2654435761u) % static_cast<unsigned>(vocab));
}

class CudaEmbedding final : public CudaOpsBench {
 public:
  std::string name() const override { return "cuda_embedding"; }
  void run(const Point& p, Measurement& m) const override {
    const auto vocab = static_cast<int>(p.integer("vocab")), dim = static_cast<int>(p.integer("dim"));
    const auto tokens = static_cast<std::size_t>(p.integer("tokens"));
    with_dtype(p.text("dtype"), [&](auto tag) {
      using T = decltype(tag);
      DeviceBuffer table(static_cast<std::size_t>(vocab) * dim * sizeof(T)), ids(tokens * sizeof(int)),
          out(tokens * dim * sizeof(T));
      fill_random<T>(table, static_cast<std::size_t>(vocab) * static_cast<std::size_t>(dim), 1);
      Stream s;
      fill_ids<<<grid_1d(tokens), 256, 0, s.get()>>>(ids.get<int>(), tokens, vocab);
      PTP_CUDA_CHECK(cudaGetLastError());
      measure_cuda(m, s.get(), [&] {
        gather_kernel<T><<<grid_1d(tokens * dim), 256, 0, s.get()>>>(table.get<T>(), ids.get<int>(), out.get<T>(),
                                                                        tokens, dim);
      });
    });
  }
};

}  // namespace
PTP_REGISTER_MICROBENCH(CudaEmbedding);
}  // namespace ptp::profile::cuda
