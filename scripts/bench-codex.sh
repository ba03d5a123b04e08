#!/usr/bin/env bash
# What the worker path costs a user inside a real Codex session
# (cmd/hpatch-router, BenchmarkCodexCallWall): Codex runs every command in
# its sandbox under `bash -c`, so each `shell` call is compared with the
# command a user would otherwise have run the same way:
#   shell bash 'echo hi'        vs  echo hi
#   shell bash 'hread 10k.txt'  vs  cat -n 10k.txt
# One Codex session through a router built from this tree; the model's exec
# call runs the four commands in turn, ROUNDS times, and times each
# tools.exec_command. scripts/bench-worker.sh measures the same commands
# outside Codex against a bare `bash -c`, where the two Go process starts
# weigh far more.
#
# Usage: scripts/bench-codex.sh [ROUNDS, default 30]
#   Codex: $HPATCH_CODEX_BIN, the CI install, or `codex` on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-30}
case $rounds in
  ''|*[!0-9]*|0) echo "bench-codex: ROUNDS must be a positive number, got '$rounds'" >&2; exit 2 ;;
esac
echo "this tree: $(git describe --always --dirty)"
HPATCH_BENCH_ROUNDS=$rounds go test ./cmd/hpatch-router -run '^$' -bench '^BenchmarkCodexCallWall$' -benchtime 1x -count 1
