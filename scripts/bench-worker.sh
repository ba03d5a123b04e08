#!/usr/bin/env bash
# Benchmarks of the shell helper → worker path against the plain tools:
#   shell bash 'echo hi'        vs  bash -c 'echo hi'
#   shell python3 BODY          vs  python3 -c BODY      (the real python3,
#                                   not a pyenv shim: sys.executable)
#   shell bash 'hread 10k.txt'  vs  cat -n 10k.txt  and  bash -c 'cat -n 10k.txt'
# Each is a whole process per iteration (Go benchmarks in worker/bench_test.go,
# binaries built once in TestMain). Prints ns/op and the ratios.
# Usage: scripts/bench-worker.sh [benchtime, default 200x]
set -euo pipefail
cd "$(dirname "$0")/.."
benchtime=${1:-200x}
out=$(go test ./worker/ -run '^$' -bench 'Benchmark(Shell|BashC|PythonC|CatN)' -benchtime "$benchtime" -count 1)
echo "$out" | grep -E '^Benchmark'
ns() { echo "$out" | awk -v n="Benchmark$1-" 'index($1, n) == 1 || $1 == substr(n, 1, length(n)-1) { print $3 }'; }
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
