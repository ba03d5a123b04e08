#!/usr/bin/env bash
# Hostile files against the private commands (issue 15): each case is one
# whole `shell bash 'COMMAND FILE'` call through the helper and the worker
# (BenchmarkHostile in worker/hostile_bench_test.go), on deeply nested
# Markdown/JSON/YAML/Go/Python/TypeScript, 8 MiB of dense nested literals,
# a 50 MB line, 50 MB of random bytes, sparse files of 4 GiB and 1 TiB,
# 32 MiB of empty lines, a FIFO with no writer; and an ordinary 300-line Go
# file for the cost of a normal outline.
# Prints wall time, peak RSS (the worker's and its children's, as
# /usr/bin/time -v reports it), the exit status (-1: killed by the
# benchmark's 120 s cap) and what the command printed.
# Usage: scripts/bench-hostile.sh [CASE-REGEXP]
set -euo pipefail
cd "$(dirname "$0")/.."
filter=${1:-.}
out=$(go test ./worker/ -run '^$' -benchtime 1x -count 1 -timeout 60m -v \
  -bench "BenchmarkHostile/$filter")
printf '%-32s %10s %12s %5s\n' case ms MB-maxrss exit
echo "$out" | awk '$1 ~ /^BenchmarkHostile\// && NF > 3 {
  name = $1; sub(/^BenchmarkHostile\//, "", name); sub(/-[0-9]+$/, "", name)
  for (i = 2; i < NF; i++) { if ($(i+1) == "ms") ms = $i; if ($(i+1) == "MB-maxrss") rss = $i; if ($(i+1) == "exit") code = $i }
  printf "%-32s %10s %12s %5s\n", name, ms, rss, code }'
echo
echo "$out" | grep -E 'hostile_bench_test.go:[0-9]+: ' | sed -E 's/^ *hostile_bench_test.go:[0-9]+: //'
