#!/usr/bin/env bash
# The speed goals as whole-process figures (last measured figures: docs/accuracy.md): one learned prediction, a 10,000-row
# sweep, the default search of Llama-3-70B on 1,024 H100s. Builds nothing: run scripts/build.sh first.
# Each command runs N times (default 5); the table shows the median wall time, the median CPU time
# (user + sys, from /usr/bin/time in 10 ms steps: what a loaded machine inflates least) and the
# median peak RSS.
# Then the in-process Google Benchmark figures, when bench_predict was built.
# Usage: scripts/bench.sh [build-dir] [runs]     (PTP_BENCH_INPROCESS=0 skips the in-process part)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
runs=${2:-5}
predict="$build_dir/apps/ptp-predict/ptp-predict"
[[ -x $predict ]] || { echo "bench.sh: $predict not found; run scripts/build.sh $build_dir first" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "bench.sh: runs must be a positive integer, got '$runs'" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# measure NAME GOAL_S GOAL_MB -- COMMAND...: N runs, one table row.
measure() {
  local name=$1 goal_s=$2 goal_mb=$3
  shift 4
  : >"$tmp/runs"
  : >"$tmp/walls"
  for ((i = 0; i < runs; ++i)); do
    # Wall time of the bare process (bash's microsecond clock; /usr/bin/time counts in 10 ms), then
    # CPU time and peak RSS of a second run under /usr/bin/time.
    local start=$EPOCHREALTIME
    "$@" >/dev/null 2>"$tmp/err" || { echo "bench.sh: '$*' failed:" >&2; cat "$tmp/err" >&2; exit 1; }
    local end=$EPOCHREALTIME
    awk -v a="$start" -v b="$end" 'BEGIN {print b - a}' >>"$tmp/walls"
    /usr/bin/time -f "%U %S %M" -o "$tmp/one" "$@" >/dev/null 2>&1
    cat "$tmp/one" >>"$tmp/runs"
  done
  local wall cpu rss
  wall=$(median <"$tmp/walls")
  cpu=$(awk '{print $1 + $2}' "$tmp/runs" | median)
  rss=$(awk '{print $3 / 1024}' "$tmp/runs" | median)
  printf "%-34s %10.4f %10.2f %9.1f   <= %s s, <= %s MB\n" "$name" "$wall" "$cpu" "$rss" "$goal_s" "$goal_mb"
}

batches=$(seq -s, 16 16 800)   # 50 micro-batches
counts=$(seq -s, 8 8 80)       # 10 GPU counts
echo "ptp speed: median of $runs runs per row ($(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg))"
printf "%-34s %10s %10s %9s   %s\n" "whole process" "wall s" "cpu s" "RSS MB" "goal"
measure "one learned prediction (GPT-2 XL)" 0.010 50 -- \
  "$predict" configs/jobs/gpt2-xl-bf16-32xh100.yaml
measure "10,000-row sweep (ResNet-50)" 1 50 -- \
  "$predict" configs/jobs/resnet50-amp-8xa100.yaml --set cluster.gpus_per_node=8 --format csv \
  --sweep precision=fp32,tf32,amp_fp16,amp_bf16 \
  --sweep cluster.gpu=a100-sxm4-80gb,a100-sxm4-40gb,h100-sxm5-80gb,l40s,rtx-a6000 \
  --sweep "cluster.num_gpus=$counts" --sweep "batch_size=$batches"
measure "search Llama-3-70B, 1,024 H100" 2 50 -- \
  "$predict" configs/jobs/llama3-70b-fp8-256xh100.yaml --set cluster.num_gpus=1024 --search --top 3

bench="$build_dir/tests/bench/bench_predict"
if [[ ${PTP_BENCH_INPROCESS:-1} != 0 && -x $bench ]]; then
  echo
  echo "in process (Google Benchmark, $bench; median of $runs repetitions):"
  "$bench" --benchmark_repetitions="$runs" --benchmark_report_aggregates_only=true \
    --benchmark_filter='Gpt2XlLearned|Sweep10k|Search' 2>/dev/null | grep -E '^(Benchmark|-|BM_.*_median)'
fi
