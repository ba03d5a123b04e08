#!/usr/bin/env bash
# Benchmarks of the private commands (DESIGN.md §7):
#   - hgrep vs plain `rg --json` on $(go env GOROOT)/src with the same
#     pattern, alternated in each iteration; "ratio" is hgrep's time over rg's;
#   - inspect_file on the largest Go file under $(go env GOROOT)/src.
# Usage: scripts/bench-private.sh [BENCHTIME]   (default 5x)
set -euo pipefail
cd "$(dirname "$0")/.."
benchtime=${1:-5x}
command -v rg >/dev/null || { echo "bench-private: ripgrep (rg) is not on PATH" >&2; exit 127; }
echo "rg: $(rg --version | head -1); go: $(go version); GOROOT/src: $(go env GOROOT)/src"
go test -run '^$' -bench 'HgrepVsRgJSON' -benchtime "$benchtime" ./worker/hgrep/
go test -run '^$' -bench 'InspectLargestGoFile' -benchtime "$benchtime" -benchmem -v ./worker/inspect/ |
  grep -E 'largest Go file|^Benchmark|^ok'
