#pragma once
// CPU-only decisions of the CUDA backend, kept free of CUDA headers so tests/profile can check them
// on a machine without a GPU or toolkit: the math mode and notes a GEMM/conv row carries, the FP8
// operand pair and fast-accumulation flag per training pass, which cuDNN engines count as FP32 or
// TF32, how NCCL points size their element counts and iterations per sample, and the kernel_name
// a CUPTI record becomes.
#include <cxxabi.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <vector>

#include "ptp/vocab/error.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda_choices {

// ---- GEMM (cuBLASLt) --------------------------------------------------------------------------

enum class GemmCompute { f32, f32_fast_tf32, f16 };  // CUBLAS_COMPUTE_32F, _32F_FAST_TF32, _16F

struct GemmPrecision {
  std::string math;       // dtype_compute column: fp32 | tf32 | fp16 | bf16 | fp8 (what ptp-train reads)
  std::string a, b;       // storage dtype of A and B
  std::string out;        // dtype of C/D
  std::string accum;      // accumulator: fp32 | fp16
  GemmCompute compute = GemmCompute::f32;
  bool fast_accum = false;  // CUBLASLT_MATMUL_DESC_FAST_ACCUM (FP8 only)
  std::string notes;      // notes column: accumulator, FP8 operand pair, fast accumulation
};

inline bool is_fp8_name(const std::string& d) { return d == "fp8_e4m3" || d == "fp8_e5m2"; }

// dtype: fp32 | tf32 | fp16 | bf16 | fp8_e4m3 | fp8_e5m2; accum: fp32 | fp16 (fp16 only with dtype
// fp16); pass: fwd | dgrad | wgrad. FP8 follows Transformer Engine: cuBLASLt rejects E5M2 x E5M2,
// so an E5M2 GEMM (gradients in the HYBRID recipe) pairs A = E4M3 with B = E5M2; the forward GEMM
// uses fast accumulation, the backward ones the split (full-precision) accumulator; output BF16.
inline GemmPrecision gemm_precision(const std::string& dtype, const std::string& accum, const std::string& pass) {
  if (accum != "fp32" && accum != "fp16") throw InputError("accum must be fp32 or fp16, got '" + accum + "'");
  if (accum == "fp16" && dtype != "fp16") throw InputError("accum=fp16 needs dtype fp16");
  if (pass != "fwd" && pass != "dgrad" && pass != "wgrad")
    throw InputError("pass must be fwd, dgrad or wgrad, got '" + pass + "'");
  GemmPrecision g;
  g.accum = accum;
  if (dtype == "fp32" || dtype == "tf32" || dtype == "fp16" || dtype == "bf16") {
    g.math = dtype;
    g.a = g.b = g.out = dtype;  // tf32: fp32 storage, named by its mode as in the dtype_in column
    g.compute = accum == "fp16" ? GemmCompute::f16 : (dtype == "tf32" ? GemmCompute::f32_fast_tf32 : GemmCompute::f32);
    g.notes = "accum=" + accum;
    return g;
  }
  if (!is_fp8_name(dtype))
    throw InputError("dtype must be fp32, tf32, fp16, bf16, fp8_e4m3 or fp8_e5m2, got '" + dtype + "'");
  g.math = "fp8";
  g.a = "fp8_e4m3";
  g.b = dtype;
  g.out = "bf16";
  g.compute = GemmCompute::f32;
  g.fast_accum = pass == "fwd";
  g.notes = "accum=fp32; a=" + g.a + " b=" + g.b + "; fast_accum=" + (g.fast_accum ? "1" : "0");
  return g;
}

// ---- Convolution (cuDNN) ----------------------------------------------------------------------

struct ConvPrecision {
  std::string math;   // dtype_compute: fp32 | tf32 | fp16 | bf16
  std::string notes;  // accumulator (cuDNN compute type): always fp32 here
};

inline ConvPrecision conv_precision(const std::string& dtype) {
  if (dtype != "fp32" && dtype != "tf32" && dtype != "fp16" && dtype != "bf16")
    throw InputError("conv dtype must be fp32, tf32, fp16 or bf16, got '" + dtype + "'");
  return {dtype, "accum=fp32"};
}

// Numerical notes of one cuDNN engine (CUDNN_ATTR_ENGINE_NUMERICAL_NOTE).
struct EngineNotes {
  bool tensor_core = false;   // CUDNN_NUMERICAL_NOTE_TENSOR_CORE
  bool down_convert = false;  // CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS
};

// As frameworks filter (PyTorch with allow_tf32 off, cudnn-frontend's filters): FP32 math excludes
// tensor-core and down-converting engines (they would be TF32 or lower); TF32 requires a
// tensor-core engine; FP16/BF16 take any engine.
inline bool engine_allowed(const EngineNotes& n, const std::string& math) {
  if (math == "fp32") return !n.tensor_core && !n.down_convert;
  if (math == "tf32") return n.tensor_core;
  return true;
}

// Indices of the heuristic's engine configs to try, in heuristic order.
inline std::vector<std::size_t> engines_to_try(const std::vector<EngineNotes>& notes, const std::string& math) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < notes.size(); ++i)
    if (engine_allowed(notes[i], math)) out.push_back(i);
  return out;
}

// ---- NCCL collectives ---------------------------------------------------------------------------

struct CollectiveCount {
  std::size_t count = 0;     // elements of the largest buffer, as the launch sees it
  std::size_t per_rank = 0;  // elements each rank contributes (all_gather) or receives (reduce_scatter)
  std::size_t bytes = 0;     // bytes actually moved in the largest buffer (size_bytes rounded down)
  std::string skip_reason;   // non-empty: the size rounds to zero elements for this dtype x ranks
};

// nccl-tests rounding: size_bytes / element bytes, and for all_gather / reduce_scatter a multiple
// of the rank count (each rank's share is count / ranks).
inline CollectiveCount collective_count(const std::string& collective, std::size_t size_bytes, std::size_t elem_bytes,
                                        int ranks) {
  CollectiveCount c;
  if (elem_bytes == 0 || ranks < 1) throw InputError("collective_count: element bytes and ranks must be >= 1");
  c.count = size_bytes / elem_bytes;
  c.per_rank = c.count;
  if (collective == "all_gather" || collective == "reduce_scatter") {
    c.per_rank = c.count / static_cast<std::size_t>(ranks);
    c.count = c.per_rank * static_cast<std::size_t>(ranks);
  }
  c.bytes = c.count * elem_bytes;
  if (c.per_rank == 0) {
    const bool split = collective == "all_gather" || collective == "reduce_scatter";
    c.skip_reason = std::to_string(size_bytes) + " bytes is less than one " + std::to_string(elem_bytes) + "-byte element" +
                    (split ? " per rank (" + std::to_string(ranks) + " ranks)" : std::string());
  }
  return c;
}

// Collectives launched per timed sample so one sample lasts about `target_s` (nccl-tests -n):
// `call_s` is the (agreed, slowest-rank) time of one call. Small messages would otherwise time the
// launch and synchronisation, not the collective.
inline int collective_iterations(double call_s, double target_s = 1e-3, int max_iters = 1000) {
  if (!(call_s > 0) || !std::isfinite(call_s)) return max_iters;
  const double n = std::ceil(target_s / call_s);
  return static_cast<int>(std::clamp(n, 1.0, static_cast<double>(max_iters)));
}

// Seconds without progress after which a multi-process NCCL point aborts every rank (MPI_Abort):
// generous against the sample time cap, never below a minute (communicator setup over a fabric).
inline double collective_watchdog_s(double max_time_s) { return std::max(60.0, 20.0 * max_time_s); }

// ---- kernel_name (CUPTI Activity records) ----------------------------------------------------

// CUPTI reports C++ kernels by their mangled names. The first H100 run showed that nvcc mangles an
// anonymous namespace with per-build hashes ("_GLOBAL__N__65fe97f5_19_cuda_elementwise_cu_3e98a669_6253"),
// so the same kernel got a new kernel_name with every build. Mangled names are demangled and lose the
// return type and parameter list ("ptp::profile::cuda::(anonymous namespace)::elementwise_kernel<float>",
// "cudnn::engines_precompiled::nchwToNhwcKernel<__half, ...>"); template arguments stay, as they tell
// kernels apart. Plain names (cuBLAS's "nvjet_sm90_...", "sm90_xmma_...") and names the demangler
// rejects come back unchanged.
inline std::string kernel_display_name(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || d == nullptr) {
    std::free(d);
    return name;
  }
  std::string s(d);
  std::free(d);
  if (!s.empty() && s.back() == ')') {  // drop the parameter list: the last balanced "(...)"
    int depth = 0;
    for (std::size_t i = s.size(); i-- > 0;) {
      if (s[i] == ')') ++depth;
      if (s[i] == '(' && --depth == 0) {
        s.erase(i);
        break;
      }
    }
  }
  if (s.rfind("void ", 0) == 0) s.erase(0, 5);  // function templates demangle with their return type
  return s;
}

}  // namespace ptp::profile::cuda_choices
