#!/usr/bin/env bash
# The speed goals as whole-process figures (before/after figures and profiles: docs/performance.md):
# one learned prediction, a 10,000-row sweep, the default search of Llama-3-70B on 1,024 H100s.
# Builds nothing: run scripts/build.sh first.
# Each command runs N times (default 5); the table shows the median wall time, the median CPU time
# (user + sys, from /usr/bin/time in 10 ms steps: what a loaded machine inflates least) and the
# median peak RSS.
# --against BIN: the same commands with another ptp-predict (a build of an older commit, say), run
# interleaved with this one (this, other, this, other, ...) so that both see the same machine, and
# the ratios other / this. Each binary reads its own configs/ and bundle (the ones beside it).
# Then the in-process Google Benchmark figures, when bench_predict was built.
# Usage: scripts/bench.sh [--against BIN] [build-dir] [runs]   (PTP_BENCH_INPROCESS=0 skips the in-process part)
set -euo pipefail
cd "$(dirname "$0")/.."
against=
if [[ ${1:-} == --against ]]; then
  [[ $# -ge 2 ]] || { echo "bench.sh: --against needs a ptp-predict binary" >&2; exit 2; }
  against=$2
  shift 2
  [[ -x $against ]] || { echo "bench.sh: --against $against is not an executable" >&2; exit 2; }
fi
build_dir=${1:-build}
runs=${2:-5}
predict="$build_dir/apps/ptp-predict/ptp-predict"
[[ -x $predict ]] || { echo "bench.sh: $predict not found; run scripts/build.sh $build_dir first" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "bench.sh: runs must be a positive integer, got '$runs'" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# one_run BIN TAG ARGS...: one bare run (wall time: bash's microsecond clock; /usr/bin/time counts in
# 10 ms) and one under /usr/bin/time (CPU time, peak RSS), appended to $tmp/TAG.walls and $tmp/TAG.runs.
one_run() {
  local bin=$1 tag=$2
  shift 2
  local start=$EPOCHREALTIME
  "$bin" "$@" >/dev/null 2>"$tmp/err" || { echo "bench.sh: '$bin $*' failed:" >&2; cat "$tmp/err" >&2; exit 1; }
  local end=$EPOCHREALTIME
  awk -v a="$start" -v b="$end" 'BEGIN {print b - a}' >>"$tmp/$tag.walls"
  /usr/bin/time -f "%U %S %M" -o "$tmp/one" "$bin" "$@" >/dev/null 2>&1
  cat "$tmp/one" >>"$tmp/$tag.runs"
}
# figures TAG: "wall cpu rss" medians of the runs recorded under TAG.
figures() {
  local wall cpu rss
  wall=$(median <"$tmp/$1.walls")
  cpu=$(awk '{print $1 + $2}' "$tmp/$1.runs" | median)
  rss=$(awk '{print $3 / 1024}' "$tmp/$1.runs" | median)
  echo "$wall $cpu $rss"
}

# measure NAME GOAL_S GOAL_MB -- ARGS...: N runs of this binary (interleaved with --against's), one row.
measure() {
  local name=$1 goal_s=$2 goal_mb=$3
  shift 4
  : >"$tmp/this.walls"; : >"$tmp/this.runs"; : >"$tmp/other.walls"; : >"$tmp/other.runs"
  for ((i = 0; i < runs; ++i)); do
    one_run "$predict" this "$@"
    [[ -z $against ]] || one_run "$against" other "$@"
  done
  read -r wall cpu rss < <(figures this)
  if [[ -z $against ]]; then
    printf "%-40s %10.4f %10.2f %9.1f   <= %s s, <= %s MB\n" "$name" "$wall" "$cpu" "$rss" "$goal_s" "$goal_mb"
    return
  fi
  read -r owall ocpu orss < <(figures other)
  # /usr/bin/time counts CPU in 10 ms steps: below 0.1 s its ratio says nothing ("-").
  local cpu_ratio
  cpu_ratio=$(awk -v a="$ocpu" -v b="$cpu" 'BEGIN {if (a < 0.1 || b < 0.1) print "-"; else printf "%.1fx", a / b}')
  printf "%-40s %10.4f %10.4f %8.1fx   %8.2f %8.2f %9s   %7.1f %7.1f\n" "$name" "$owall" "$wall" \
    "$(awk -v a="$owall" -v b="$wall" 'BEGIN {print a / b}')" "$ocpu" "$cpu" "$cpu_ratio" "$orss" "$rss"
}

batches=$(seq -s, 16 16 800)   # 50 micro-batches
counts=$(seq -s, 8 8 80)       # 10 GPU counts
cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo "ptp speed: median of $runs runs per row ($(nproc) CPUs: ${cpu_model:-unknown}; load average $(cut -d' ' -f1 /proc/loadavg))"
if [[ -z $against ]]; then
  printf "%-40s %10s %10s %9s   %s\n" "whole process" "wall s" "cpu s" "RSS MB" "goal"
else
  echo "interleaved with --against $against: ratios are its time / this one's (above 1: this is faster)"
  printf "%-40s %10s %10s %9s   %8s %8s %9s   %7s %7s\n" "whole process" "other s" "this s" "wall" "other cpu" "this cpu" \
    "cpu" "oth MB" "this MB"
fi
measure "one learned prediction (GPT-2 XL)" 0.005 50 -- \
  configs/jobs/gpt2-xl-bf16-32xh100.yaml
measure "10,000-row sweep (ResNet-50)" 0.5 50 -- \
  configs/jobs/resnet50-amp-8xa100.yaml --set cluster.gpus_per_node=8 --format csv \
  --sweep precision=fp32,tf32,amp_fp16,amp_bf16 \
  --sweep cluster.gpu=a100-sxm4-80gb,a100-sxm4-40gb,h100-sxm5-80gb,l40s,rtx-a6000 \
  --sweep "cluster.num_gpus=$counts" --sweep "batch_size=$batches"
measure "search Llama-3-70B, 1,024 H100" 2 50 -- \
  configs/jobs/llama3-70b-fp8-256xh100.yaml --set cluster.num_gpus=1024 --search --top 3
measure "the same search on 1 thread" 2 50 -- \
  configs/jobs/llama3-70b-fp8-256xh100.yaml --set cluster.num_gpus=1024 --search --top 3 --threads 1
[[ -z $against ]] || echo "goals (issue 55): search >= 10x, sweep >= 15x, one prediction <= 5 ms or >= 2x; peak RSS <= 50 MB each"

bench="$build_dir/tests/bench/bench_predict"
if [[ ${PTP_BENCH_INPROCESS:-1} != 0 && -x $bench ]]; then
  echo
  echo "in process (Google Benchmark, $bench; median of $runs repetitions):"
  "$bench" --benchmark_repetitions="$runs" --benchmark_report_aggregates_only=true \
    --benchmark_filter='Gpt2XlLearned|Sweep10k|Search' 2>/dev/null | grep -E '^(Benchmark|-|BM_.*_median)'
fi
