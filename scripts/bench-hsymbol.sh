#!/usr/bin/env bash
# hsymbol latency per language server (worker/hsymbol BenchmarkHsymbolLatency):
#   first   the first call of a run: the server starts cold (a HOME where it
#           never ran) and answers;
#   second  the next call of the same run, on the server the first started;
#   alone   that second call in a run of its own (cold again).
# gopls works on this repository (a definition in another package, then the
# references of privcmd.Env); pyright and typescript-language-server on
# testdata/workspace. Each is measured outside any sandbox (a fresh writable
# HOME per run) and inside Codex's default read-only sandbox (`codex sandbox`:
# a fresh HOME that cannot be written, so hsymbol keeps the server's cache in
# /dev/shm and every run is cold). Medians with the range over the runs, in ms.
# gopls reads this repository's dependencies from the machine's module cache
# (GOMODCACHE is kept: a fresh HOME would move it to an empty one, and the
# sandbox has no network), as for a user who ran `go mod download` once.
# Servers and codex are found on PATH ($HPATCH_CODEX_BIN wins for codex); a
# missing server is skipped, a missing codex skips the sandbox rows.
# Usage: scripts/bench-hsymbol.sh [RUNS, default 5]
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
runs=${1:-5}
case $runs in '' | *[!0-9]* | 0) echo "bench-hsymbol: RUNS must be a positive number, not '$runs'" >&2; exit 2 ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for s in gopls pyright-langserver typescript-language-server; do
  echo "$s: $(command -v "$s" || echo 'not on PATH (skipped)')"
done
echo "go: $(go version); cores: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
go test -c -o "$tmp/hsymbol.test" ./worker/hsymbol
go mod download
export GOMODCACHE=$(go env GOMODCACHE) GOTOOLCHAIN=local
bench=(-test.run '^$' -test.bench HsymbolLatency -test.benchtime "${runs}x")

# fresh_home DIR: an empty HOME, XDG_* and TMPDIR under DIR, as env arguments.
fresh_home() {
  local v d args=()
  for v in HOME TMPDIR XDG_CONFIG_HOME XDG_CACHE_HOME XDG_DATA_HOME XDG_STATE_HOME; do
    d=$1/$(echo "$v" | tr 'A-Z' 'a-z')
    mkdir -p "$d"
    args+=("$v=$d")
  done
  printf '%s\n' "${args[@]}"
}

cd worker/hsymbol
out_plain=$(env -u GOCACHE -u GOPLSCACHE HPATCH_BENCH_HSYMBOL_HOME=fresh "$tmp/hsymbol.test" "${bench[@]}")
echo "$out_plain" | grep -E '^Benchmark' | sed 's/^/outside: /'

codex=${HPATCH_CODEX_BIN:-$(command -v codex || true)}
out_sandbox=
if [ -n "$codex" ]; then
  mkdir -p "$tmp/codex-home" "$tmp/sandbox-home"
  mapfile -t home < <(fresh_home "$tmp/sandbox-home")
  # HOME, XDG_* and TMPDIR exist but are read-only inside, like /tmp.
  out_sandbox=$(env -u GOCACHE -u GOPLSCACHE "${home[@]}" CODEX_HOME="$tmp/codex-home" \
    "$codex" sandbox -- \
    env HPATCH_BENCH_HSYMBOL_HOME=given "$tmp/hsymbol.test" "${bench[@]}" 2>"$tmp/sandbox.err") ||
    { cat "$tmp/sandbox.err" >&2; exit 1; }
  echo "$out_sandbox" | grep -E '^Benchmark' | sed 's/^/sandbox: /'
else
  echo "codex not found: no read-only sandbox rows"
fi

# table WHERE OUTPUT: one Markdown row per server.
table() {
  echo "$2" | awk -v where="$1" '
    function cell(k) { return sprintf("%.0f (%.0f-%.0f)", m[k "-p50-ms"], m[k "-min-ms"], m[k "-max-ms"]) }
    /^Benchmark/ {
      split($1, name, "/"); server = name[2]; sub(/-[0-9]+$/, "", server)
      for (i = 3; i < NF; i++) m[$(i+1)] = $i
      printf "| %-10s | %-9s | %20s | %16s | %20s | %7.3f | %7.1fx |\n", server, where, cell("first"), cell("second"),
        cell("alone"), m["second-p50-ms"] / m["first-p50-ms"], m["alone-p50-ms"] / m["second-p50-ms"]
    }'
}
echo
echo "hsymbol latency in ms, median (min-max) over $runs runs; 2nd/1st and cold/2nd from the medians"
echo
echo "| server     | where     | first call (cold)    | second call      | second alone (cold)  | 2nd/1st | cold/2nd |"
echo "|------------|-----------|----------------------|------------------|----------------------|---------|----------|"
table outside "$out_plain"
[ -z "$out_sandbox" ] || table read-only "$out_sandbox"
