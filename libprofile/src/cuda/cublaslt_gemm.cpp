#include "cublaslt_gemm.hpp"

#include <cublasLt.h>
#include <cuda_fp16.h>

#include <algorithm>

#include "ptp/profile/detail/cuda_choices.hpp"
#include "ptp/profile/detail/cuda_work.hpp"
#include "cuda_dtypes.hpp"
#include "cuda_measure.hpp"
#include "fill.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {

namespace {

constexpr std::size_t kWorkspace = 32u << 20;

struct GemmShape {
  std::int64_t m, n, k, batch;
  std::string dtype;
  cuda_choices::GemmPrecision prec;  // math mode, operand/output dtypes, accumulator, fast accumulation
};

GemmShape shape_of(const Point& p, bool batched) {
  GemmShape s{p.integer("m"), p.integer("n"), p.integer("k"), batched ? p.integer("batch") : 1, p.text("dtype"), {}};
  if (s.m < 1 || s.n < 1 || s.k < 1 || s.batch < 1) throw InputError(p.id() + ": m, n, k, batch must be >= 1");
  cuda_dtype(s.dtype, p.id());
  try {
    s.prec = cuda_choices::gemm_precision(s.dtype, p.text("accum"), p.text("pass"));
  } catch (const InputError& e) {
    throw InputError(p.id() + ": " + e.what());
  }
  return s;
}

// FP8 GEMMs write BF16 (Transformer Engine's usual output); other modes write their input type.
cudaDataType_t out_type(const GemmShape& s) { return cuda_dtype(s.prec.out, "").type; }
int out_bytes(const GemmShape& s) { return cuda_dtype(s.prec.out, "").bytes; }

template <typename T, cublasStatus_t (*Destroy)(T)>
struct LtHandle {
  T h = nullptr;
  ~LtHandle() {
    if (h) Destroy(h);
  }
};

}  // namespace

// The axes and the Work are CPU code shared with plan-only builds (cuda_work.cpp).
std::vector<AxisSpec> gemm_axes(bool batched) {
  return cuda_work::spec(batched ? "cublaslt_batched_gemm" : "cublaslt_gemm").axes();
}

Work describe_gemm(const Point& p, bool batched) {
  Work w = cuda_work::spec(batched ? "cublaslt_batched_gemm" : "cublaslt_gemm").describe(p);
  cuda_dtype(p.text("dtype"), p.id());  // and what this build's toolkit has (FP8: CUDA 11.8+)
  return w;
}

void run_gemm(const Point& p, Measurement& meas, bool batched) {
  const GemmShape s = shape_of(p, batched);
  const CudaDtype in = cuda_dtype(s.prec.a, p.id()), in_b = cuda_dtype(s.prec.b, p.id());
  require_sm(std::max(in.min_sm, in_b.min_sm), s.dtype + " GEMM");
  const bool fp8 = is_fp8(s.dtype);
  const bool half_accum = s.prec.compute == cuda_choices::GemmCompute::f16;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  if (s.prec.compute == cuda_choices::GemmCompute::f32_fast_tf32) compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  if (half_accum) compute = CUBLAS_COMPUTE_16F;
  const cudaDataType_t scale_type = half_accum ? CUDA_R_16F : CUDA_R_32F;
  meas.set("notes", s.prec.notes);  // measure_cuda appends the CUPTI kernel summary

  LtHandle<cublasLtHandle_t, cublasLtDestroy> lt;
  PTP_CUBLAS_CHECK(cublasLtCreate(&lt.h));
  LtHandle<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy> op;
  PTP_CUBLAS_CHECK(cublasLtMatmulDescCreate(&op.h, compute, scale_type));
  // Column-major D(m x n) = op(A) * B. FP8 needs A transposed ("TN"), so A is stored k x m.
  const cublasOperation_t ta = fp8 ? CUBLAS_OP_T : CUBLAS_OP_N, tb = CUBLAS_OP_N;
  PTP_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op.h, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  PTP_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op.h, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
#if CUDART_VERSION >= 11080
  if (fp8) {
    const std::int8_t fast = s.prec.fast_accum ? 1 : 0;
    PTP_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op.h, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast));
  }
#endif

  const auto m = static_cast<std::uint64_t>(s.m), n = static_cast<std::uint64_t>(s.n),
             k = static_cast<std::uint64_t>(s.k);
  LtHandle<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy> la, lb, lc, ld;
  PTP_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&la.h, in.type, fp8 ? k : m, fp8 ? m : k, static_cast<std::int64_t>(fp8 ? k : m)));
  PTP_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lb.h, in_b.type, k, n, static_cast<std::int64_t>(k)));
  PTP_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lc.h, out_type(s), m, n, static_cast<std::int64_t>(m)));
  PTP_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&ld.h, out_type(s), m, n, static_cast<std::int64_t>(m)));
  if (batched) {
    const auto batch = static_cast<std::int32_t>(s.batch);
    const std::int64_t sa = static_cast<std::int64_t>(m * k), sb = static_cast<std::int64_t>(k * n),
                       sc = static_cast<std::int64_t>(m * n);
    for (auto [layout, stride] : {std::pair{la.h, sa}, {lb.h, sb}, {lc.h, sc}, {ld.h, sc}}) {
      PTP_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch));
      PTP_CUBLAS_CHECK(
          cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride));
    }
  }

  const std::size_t b = static_cast<std::size_t>(s.batch);
  DeviceBuffer a(b * m * k * static_cast<std::size_t>(in.bytes)), bm(b * k * n * static_cast<std::size_t>(in_b.bytes)),
      d(b * m * n * static_cast<std::size_t>(out_bytes(s))), workspace(kWorkspace);
  fill_uniform(a.get(), b * m * k, s.prec.a, 1);  // random operands: zeros would hide power-limited clocks
  fill_uniform(bm.get(), b * k * n, s.prec.b, 2);

  LtHandle<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy> pref;
  PTP_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref.h));
  const std::size_t ws = kWorkspace;
  PTP_CUBLAS_CHECK(
      cublasLtMatmulPreferenceSetAttribute(pref.h, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  PTP_CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(lt.h, op.h, la.h, lb.h, lc.h, ld.h, pref.h, 1, &heuristic, &found));
  if (found == 0) throw PointFailure(PointStatus::unsupported, "cuBLASLt has no algorithm for " + p.id());

  const float alpha32 = 1, beta32 = 0;
  const __half alpha16 = __float2half(1.0f), beta16 = __float2half(0.0f);
  const void* alpha = half_accum ? static_cast<const void*>(&alpha16) : &alpha32;
  const void* beta = half_accum ? static_cast<const void*>(&beta16) : &beta32;
  Stream stream;
  measure_cuda(meas, stream.get(), [&] {
    PTP_CUBLAS_CHECK(cublasLtMatmul(lt.h, op.h, alpha, a.get(), la.h, bm.get(), lb.h, beta, d.get(), lc.h, d.get(),
                                    ld.h, &heuristic.algo, workspace.get(), kWorkspace, stream.get()));
  });
}

}  // namespace ptp::profile::cuda
