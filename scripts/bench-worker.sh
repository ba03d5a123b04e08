#!/usr/bin/env bash
# Benchmarks of the shell helper → worker path against the plain tools, as
# whole processes (worker/bench_test.go, BenchmarkWorkerPath):
#   shell bash 'echo hi'        vs  bash -c 'echo hi'
#   shell bash 'hread 10k.txt'  vs  bash -c 'cat -n 10k.txt'  and  cat -n 10k.txt
#   shell python3 BODY          vs  python3 -c BODY
# and where `shell bash 'echo hi'` spends its time (helper, router binary
# start, the rest), next to its floor: two static Go images that do
# nothing (one execs the other, as the helper execs the router binary),
# and the same call with a worker-only image as the launcher: what a second
# shipped image would buy (not shipped: REQ ¶17 execs the router binary).
# Every iteration runs every case once, interleaved, so a changing machine
# load hits all of them alike; with --base, alternate iterations swap the
# two builds within each case, so neither always runs in the other's wake.
# The table gives medians with quartiles, CPU time, and ratios (also per
# iteration, paired).
# python3 is resolved to the interpreter itself first: a pyenv shim is a
# bash script that would dominate both sides of the Python ratio.
#
# Usage: scripts/bench-worker.sh [--base REV] [ITERATIONS, default 200]
#   --base REV  also build the router and the helper at git revision REV
#               (e.g. main) and run them in the same iterations: before
#               and after under the same load.
set -euo pipefail
cd "$(dirname "$0")/.."
base=""
if [ "${1:-}" = "--base" ]; then
  [ -n "${2:-}" ] || { echo "bench-worker: --base needs a git revision, e.g. --base main" >&2; exit 2; }
  base=$2
  shift 2
fi
iterations=${1:-200}
case $iterations in
  ''|*[!0-9]*) echo "bench-worker: ITERATIONS must be a number, got '$iterations'" >&2; exit 2 ;;
esac
if py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$py" ]; then
  export HPATCH_BENCH_PYTHON=$py
  echo "python3: $py ($(command -v python3))"
else
  echo "python3: not found; the Python pair is skipped"
fi
if [ -n "$base" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  rev=$(git rev-parse --short "$base^{commit}")
  mkdir -p "$tmp/src"
  git archive "$rev" | tar -x -C "$tmp/src"
  # The base is built the way it shipped: its own `make build` (static
  # since the cgo parsers went, dynamic before), so the comparison is the
  # one a user would see.
  make -s -C "$tmp/src" build BIN="$tmp" VERSION="$rev" >/dev/null
  # The base's runtime is prepared by the base's own code: a router refuses
  # a snapshot manifest of a later format, so one prepared by this tree
  # would not run it. The program leaves the runtime in place (no Close).
  mkdir -p "$tmp/src/cmd/bench-base-runtime" "$tmp/runtime"
  cat > "$tmp/src/cmd/bench-base-runtime/main.go" <<'GO'
package main

import (
	"context"
	"fmt"
	"os"

	"hpatch-router/worker"
)

// bench-base-runtime ROOT LAUNCHER prepares thread "bench" in ROOT.
func main() {
	rt, err := worker.NewRuntime(os.Args[1], worker.WithExecutable(os.Args[2]))
	if err == nil {
		err = rt.PrepareThread(context.Background(), "bench")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-base-runtime:", err)
		os.Exit(1)
	}
}
GO
  (cd "$tmp/src" && go run ./cmd/bench-base-runtime "$tmp/runtime" "$tmp/hpatch-router")
  export HPATCH_BENCH_BASE_ROUTER=$tmp/hpatch-router HPATCH_BENCH_BASE_HELPER=$tmp/shell HPATCH_BENCH_BASE_RUNTIME=$tmp/runtime
  echo "base: $base ($rev), built in $tmp"
fi
echo "this tree: $(git describe --always --dirty)"
go test ./worker/ -run '^$' -bench '^BenchmarkWorkerPath$' -benchtime "${iterations}x" -count 1
