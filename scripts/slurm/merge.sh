#!/bin/bash
# Merge the per-GPU outputs of an array job into one ops.csv and one collectives.csv, keeping one
# header and refusing duplicate point_ids (ids embed the GPU id, so clean runs never collide).
#   scripts/slurm/merge.sh results/ merged/
set -euo pipefail
in=${1:?usage: merge.sh INDIR OUTDIR}
out=${2:?usage: merge.sh INDIR OUTDIR}
mkdir -p "$out"
for table in ops collectives; do
  files=("$in"/*."$table".csv)
  [ -e "${files[0]}" ] || continue
  header=$(head -n1 "${files[0]}")
  for f in "${files[@]}"; do
    [ "$(head -n1 "$f")" = "$header" ] || { echo "merge.sh: $f: header differs from ${files[0]}" >&2; exit 2; }
  done
  tmp="$out/.$table.csv.tmp"
  { echo "$header"; for f in "${files[@]}"; do tail -n +2 "$f"; done; } >"$tmp"
  # point_id is the first column and never quoted (no commas, quotes or newlines in ids).
  dups=$(tail -n +2 "$tmp" | grep -v '^[[:space:]]' | cut -d, -f1 | sort | uniq -d | head -5)
  if [ -n "$dups" ]; then echo "merge.sh: duplicate point_ids in $table:" >&2; echo "$dups" >&2; rm -f "$tmp"; exit 2; fi
  mv "$tmp" "$out/$table.csv"
  echo "$out/$table.csv: $(($(wc -l <"$out/$table.csv") - 1)) lines from ${#files[@]} files"
done
