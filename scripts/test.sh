#!/usr/bin/env bash
# README command 2 (and what CI runs): the whole test suite, twice:
#   1. Release build with warnings as errors and the CUDA backend compiled and linked when nvcc exists,
#      the Python package and its pytest tests included;
#   2. CPU-only build under AddressSanitizer + UndefinedBehaviorSanitizer.
# Then each fuzz target briefly when clang's libFuzzer is available (PTP_FUZZ_SECONDS, default 20).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --tests
start=$SECONDS

cuda=(-DPTP_WITH_CUDA=OFF)
# CI compiles the CUDA backend for the oldest (sm_75) and the newest FP8 (sm_90) target only: every
# code path is compiled, at a third of the device-compile time of the default five architectures.
[[ -x /usr/local/cuda/bin/nvcc ]] && cuda=(-DPTP_WITH_CUDA=ON "-DCMAKE_CUDA_ARCHITECTURES=${PTP_CI_CUDA_ARCHS:-75;90}")
echo "== build (warnings as errors, ${cuda[*]})"
scripts/build.sh build-ci "${cuda[@]}" -DPTP_WARNINGS_AS_ERRORS=ON
echo "== tests"
ctest --test-dir build-ci --output-on-failure -j 2 --timeout 600

echo "== sanitizer build (ASan + UBSan, CPU only)"
scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTP_WITH_CUDA=OFF -DPTP_SANITIZE=ON \
  -DPTP_WARNINGS_AS_ERRORS=ON -DPTP_BUILD_BENCHMARKS=OFF
echo "== tests under sanitizers"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j 2 --timeout 900

if [[ -x scripts/fuzz.sh ]]; then
  echo "== fuzz targets (${PTP_FUZZ_SECONDS:-20} s each)"
  scripts/fuzz.sh "${PTP_FUZZ_SECONDS:-20}"
fi
echo "== all green in $((SECONDS - start)) s"
