#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, -fsanitize=fuzzer,address,undefined, CPU only) into build-fuzz/
# and runs each for a while on a corpus seeded from configs/, the datasets and the test fixtures.
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET=20] [TARGET...]      (targets: tests/fuzz/targets.txt)
#   PTP_FUZZ_JOBS=N     targets run at a time (default 2, or 1 on a single core)
#   PTP_FUZZ_BUILD=dir  build directory (default build-fuzz)
#
# Before fuzzing, every target replays tests/fuzz/regressions/<target>/ and its seeds once. The grown
# corpus is kept in build-fuzz/corpus/<target>/ across runs. A crash, sanitizer report, leak, uncaught
# exception, an input taking over 10 s or more than 2 GB of memory is a finding: the reproducer is saved
# under build-fuzz/findings/<target>/ and the script exits 1.
#
# A finding becomes a regression test: fix the bug, copy the reproducer into
# tests/fuzz/regressions/<target>/ (ctest fuzz_replay_<target> replays it in every build, the ASan run
# included), and when the CLI can reach the input add it to tests/hostile/ as well.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds=${1:-20}
shift || true
build=${PTP_FUZZ_BUILD:-build-fuzz}
cores=$(nproc 2>/dev/null || echo 1)
jobs=${PTP_FUZZ_JOBS:-$((cores >= 2 ? 2 : 1))}

# clang with the libFuzzer runtime (Debian: clang + libclang-rt-14-dev, installed by scripts/setup.sh).
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }\n' >"$probe/p.cpp"
if ! command -v clang++ >/dev/null || ! clang++ -fsanitize=fuzzer "$probe/p.cpp" -o "$probe/p" 2>/dev/null; then
  echo "fuzz: clang++ with libFuzzer not available (install clang libclang-rt-14-dev); skipping"
  exit 0
fi

echo "fuzz: building $build (clang, libFuzzer + ASan + UBSan)"
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DPTP_WITH_CUDA=OFF -DPTP_SANITIZE=ON -DPTP_BUILD_FUZZERS=ON \
  -DPTP_TEST_MODULES=fuzz -DPTP_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$build" --target ptp_fuzzers -j 2

# targets.txt: "<target> <seed dir>..."
declare -A seeds
targets=()
while read -r name dirs; do
  [[ -z $name || $name == \#* ]] && continue
  targets+=("$name")
  seeds[$name]=$dirs
done <tests/fuzz/targets.txt
if (($#)); then
  for t in "$@"; do [[ -n ${seeds[$t]+x} ]] || { echo "fuzz: unknown target '$t' (have: ${targets[*]})"; exit 2; }; done
  targets=("$@")
fi

export PTP_CONFIG_DIR=$root/configs
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# The lines of a fuzzer log that say what went wrong.
finding_lines() {
  grep -E "ERROR|FUZZ FINDING|runtime error|Test unit written|terminate called|what\(\)" "$1" | head -8 | sed 's/^/  /'
}

run_target() {
  local t=$1 bin=$build/tests/fuzz/fuzz_$1 corpus=$build/corpus/$1 findings=$build/findings/$1
  local log=$build/logs/$1.log
  mkdir -p "$corpus" "$findings" "$build/logs"
  local dirs=("$root/tests/fuzz/regressions/$t" "$root/tests/fuzz/seeds/$t")
  for d in ${seeds[$t]}; do dirs+=("$root/$d"); done
  local existing=()
  for d in "${dirs[@]}"; do [[ -d $d ]] && existing+=("$d"); done
  local dict=()
  [[ -f tests/fuzz/dicts/$t.dict ]] && dict=("-dict=tests/fuzz/dicts/$t.dict")
  local common=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_len=65536 "-artifact_prefix=$findings/")
  # 1. replay the regressions and seeds once (-runs=0 executes the given corpora and stops)
  if ! "$bin" "${common[@]}" -runs=0 "${existing[@]}" >"$log" 2>&1; then
    echo "FAIL $t: a regression or seed input fails (log $log)"
    finding_lines "$log"
    return 1
  fi
  # 2. fuzz; new inputs go to the first directory, the grown corpus
  if ! "$bin" "${common[@]}" "${dict[@]}" -max_total_time="$seconds" -print_final_stats=1 \
      "$corpus" "${existing[@]}" >>"$log" 2>&1; then
    echo "FAIL $t: finding, reproducer in $findings/ (log $log); reproduce with: $bin <file>"
    finding_lines "$log"
    return 1
  fi
  local execs rate
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  echo "ok   $t: ${seconds} s, ${execs:-?} executions (${rate:-?}/s), corpus $(find "$corpus" -type f | wc -l) files"
}

status=0
pids=()
for t in "${targets[@]}"; do
  while ((${#pids[@]} >= jobs)); do
    if ! wait "${pids[0]}"; then status=1; fi
    pids=("${pids[@]:1}")
  done
  run_target "$t" &
  pids+=($!)
done
for p in "${pids[@]}"; do
  if ! wait "$p"; then status=1; fi
done
((status == 0)) && echo "fuzz: no findings (${#targets[@]} targets, $seconds s each)"
exit $status
