#!/usr/bin/env bash
# Benchmarks of the shell helper → worker path against the plain tools:
#   shell bash 'echo hi'        vs  bash -c 'echo hi'
#   shell python3 BODY          vs  python3 -c BODY
#   shell bash 'hread 10k.txt'  vs  cat -n 10k.txt  and  bash -c 'cat -n 10k.txt'
# and where `shell bash 'echo hi'` spends its time (helper start, router
# binary start, the worker's own work). Each is a whole process per iteration
# (Go benchmarks in worker/bench_test.go, binaries built once in TestMain).
# python3 is resolved to the interpreter itself first: a pyenv shim is a bash
# script that would dominate both sides of the Python ratio.
# Prints ns/op, the ratios and the breakdown.
# Usage: scripts/bench-worker.sh [benchtime, default 200x]
set -euo pipefail
cd "$(dirname "$0")/.."
benchtime=${1:-200x}
if py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$py" ]; then
  export HPATCH_BENCH_PYTHON=$py
  echo "python3: $py ($(command -v python3))"
else
  echo "python3: not found; the Python pair is skipped"
fi
out=$(go test ./worker/ -run '^$' -benchtime "$benchtime" -count 1 \
  -bench 'Benchmark(Shell|BashC|PythonC|CatN|EchoHiBreakdown)')
echo "$out" | grep -E '^Benchmark'
ns() { echo "$out" | awk -v n="Benchmark$1-" 'index($1, n) == 1 || $1 == substr(n, 1, length(n)-1) { print $3 }'; }
ms() { awk -v a="$1" 'BEGIN { printf "%.2f ms", a / 1e6 }'; }
ratio() {
  local a b
  a=$(ns "$1"); b=$(ns "$2")
  if [ -z "$a" ] || [ -z "$b" ]; then echo "$1 / $2: skipped"; return; fi
  awk -v a="$a" -v b="$b" -v l="$1 / $2" 'BEGIN { printf "%-34s %6.2fx  (%.2f ms vs %.2f ms)\n", l, a / b, a / 1e6, b / 1e6 }'
}
echo
ratio ShellBashEchoHi BashCEchoHi
ratio ShellPython PythonC
ratio ShellHread10k CatN10k
ratio ShellHread10k BashCCatN10k
metric() { echo "$out" | awk -v u="$1" '$1 ~ /^BenchmarkEchoHiBreakdown/ { for (i = 2; i < NF; i++) if ($(i+1) == u) print $i }'; }
if [ -n "$(metric ms-whole)" ]; then
  echo
  echo "shell bash 'echo hi' = $(metric ms-whole) ms (interleaved means):"
  echo "  helper: start, root and thread lookup        $(metric ms-helper-alone) ms  (alone, refusing a thread without a runtime)"
  echo "  router binary: start to the worker's check   $(metric ms-router-start) ms"
  echo "  rest: launcher check, memfd, exec; worker    $(metric ms-rest) ms  (authenticate, evaluate, clean up)"
fi
