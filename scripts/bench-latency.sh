#!/bin/sh
# Added latency through hpatch-router versus a plain httputil.ReverseProxy,
# both in front of the same in-process fake upstream and sent the same real
# Codex request (router/server_bench_test.go, BenchmarkLatency). The router
# runs behind package access's Guard and with the worker runtime and the
# retained-script store, as serve runs it: each response's shell call
# prepares its thread and retains its script, on a runtime root where serve
# puts it ($XDG_RUNTIME_DIR, else $TMPDIR or /tmp; retaining costs several
# times more on a disk file system than on tmpfs). HPATCH_BENCH_NO_HOOKS=1
# leaves the runtime and store out, to measure the proxy alone. Prints time to
# first byte and to the end of the stream, p50 and p99, at concurrency 1, 16
# and 64, and the CPU time of the whole test process per request
# (proc-cpu-µs: client and upstream are the same for both proxies, so the
# difference is the proxy's own CPU, which load does not blur), for two
# upstream legs: upstream=tls is the real path (Codex talks plain HTTP to
# the router on loopback, the router talks TLS and HTTP/2 to the model API),
# upstream=http leaves TLS out so the proxies' own costs weigh more.
#
# Every run also measures the router's memory with 64 streams held open at
# once (cmd/hpatch-router, BenchmarkServeStreamsRSS): the router binary runs
# as `serve` in its own process, and the kernel's VmRSS (while the 64 are
# open) and VmHWM (peak) of that process are reported.
#
# The latency test process collects garbage as serve does (GOGC=200,
# cmd/hpatch-router/serve_gc.go) unless GOGC is set: at Go's default
# GOGC=100 the collector's CPU, not the proxy's, is much of the difference
# at concurrency 1 (GOGC=100 reproduces it). Both proxies run in that one
# process, so both get the setting.
#
# The test binaries are built once and run COUNT times; every run measures the
# ReverseProxy and then the router back to back, so both see the same
# machine load. A ratio is router/ReverseProxy within one run; the table
# gives the median over the runs and, in brackets, the smallest and largest.
#
# A third target, router-5tools, is the router with five declared tools
# (plugins/examples and two more); a table gives it against the router
# without tools, the same runs.
#
# With --base REV, the same benchmark built at git revision REV runs in
# every run too, right before or after this tree's (the order alternates),
# and a second table gives this tree's router against the base's: before
# and after under the same load.
#
#   scripts/bench-latency.sh            # BENCHTIME=1000x COUNT=3
#   BENCHTIME=3000x COUNT=5 scripts/bench-latency.sh
#   COUNT=10 scripts/bench-latency.sh --base main
set -eu
cd "$(dirname "$0")/.."
BENCHTIME=${BENCHTIME:-1000x}
COUNT=${COUNT:-3}
base=
if [ "${1:-}" = "--base" ]; then
	[ -n "${2:-}" ] || { echo "bench-latency: --base needs a git revision, e.g. --base main" >&2; exit 2; }
	base=$(git rev-parse --short "$2^{commit}")
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/router.test" ./router/
go test -c -o "$tmp/serve.test" ./cmd/hpatch-router/
CGO_ENABLED=0 go build -o "$tmp/hpatch-router" ./cmd/hpatch-router/
if [ -n "$base" ]; then
	mkdir -p "$tmp/base"
	git archive "$base" | tar -x -C "$tmp/base"
	(cd "$tmp/base" && go test -c -o "$tmp/router-base.test" ./router/)
	echo "base: $2 ($base)" >&2
fi
# latency BINARY TAG: one run of BenchmarkLatency, lines tagged run=$i and,
# for the base, build=base.
latency() {
	run=$(cd router && GOGC=${GOGC:-200} "$1" -test.run '^$' -test.bench 'BenchmarkLatency' -test.benchtime "$BENCHTIME" -test.count 1)
	printf '%s\n' "$run" | grep '^BenchmarkLatency' >&2 || { printf '%s\n' "$run" >&2; exit 1; }
	out="$out$(printf '%s\n' "$run" | grep '^BenchmarkLatency' | sed "s/^BenchmarkLatency/run=$i$2 BenchmarkLatency/")
"
}
out=
i=0
while [ "$i" -lt "$COUNT" ]; do
	i=$((i + 1))
	if [ -n "$base" ] && [ $((i % 2)) = 0 ]; then
		latency "$tmp/router-base.test" " build=base"
	fi
	latency "$tmp/router.test" ""
	if [ -n "$base" ] && [ $((i % 2)) = 1 ]; then
		latency "$tmp/router-base.test" " build=base"
	fi
	rss=$(cd cmd/hpatch-router && HPATCH_ROUTER_BIN="$tmp/hpatch-router" "$tmp/serve.test" -test.run '^$' -test.bench 'BenchmarkServeStreamsRSS' -test.benchtime 3x -test.count 1)
	printf '%s\n' "$rss" | grep '^BenchmarkServeStreamsRSS' >&2 || { printf '%s\n' "$rss" >&2; exit 1; }
	out="$out$(printf '%s\n' "$rss" | grep '^BenchmarkServeStreamsRSS')
"
done
printf '%s' "$out" | awk '
function sort(a, n,    i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
}
function median(a, n) { return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
/^run=[0-9]+ (build=base )?BenchmarkLatency\// {
	run = $1; sub(/^run=/, "", run); runs[run] = 1
	f = 2; build = ""
	if ($2 == "build=base") { f = 3; build = "@base"; based = 1 }
	split($f, p, "/"); up = p[2]; sub(/^upstream=/, "", up)
	proxy = p[3]; sub(/^proxy=/, "", proxy); proxy = proxy build
	if (proxy == "router-5tools") tools = 1
	c = up " " p[4]; sub(/c=/, "", c); sub(/-[0-9]+$/, "", c)
	for (i = f + 2; i < NF; i += 2) {
		m = $(i + 1)
		if (m !~ /-µs$/) continue
		val[proxy, c, m, run] = $i
	}
}
/^BenchmarkServeStreamsRSS/ {
	nrss++
	for (i = 3; i < NF; i += 2) rss[nrss, $(i + 1)] = $i
}
# table: medians of den and num, and of num/den within each run.
function table(den, num,    ci, mi, c, m, n, run, b, r, uc) {
	printf "%-9s %-5s %-12s %13s %13s %8s  %s\n", "upstream", "conc", "metric", den, num, "ratio", "[min-max ratio]"
	for (ci = 1; ci <= 6; ci++) for (mi = 1; mi <= 5; mi++) {
		c = cs[ci]; m = order[mi]; n = 0
		delete bs; delete rs; delete qs
		for (run in runs) {
			if (!((den, c, m, run) in val) || !((num, c, m, run) in val)) continue
			b = val[den, c, m, run]; r = val[num, c, m, run]
			if (b <= 0) continue
			n++; bs[n] = b; rs[n] = r; qs[n] = r / b
		}
		if (n == 0) continue
		sort(bs, n); sort(rs, n); sort(qs, n)
		split(c, uc, " ")
		printf "%-9s %-5s %-12s %13.0f %13.0f %7.2fx  [%.2f-%.2f]\n", uc[1], uc[2], m, median(bs, n), median(rs, n), median(qs, n), qs[1], qs[n]
	}
}
END {
	split("ttfb-p50-µs ttfb-p99-µs full-p50-µs full-p99-µs proc-cpu-µs", order, " ")
	split("tls 1,tls 16,tls 64,http 1,http 16,http 64", cs, ",")
	table("reverseproxy", "router")
	if (tools) {
		print ""
		print "five declared tools against none (router-5tools/router), the same runs:"
		table("router", "router-5tools")
	}
	if (based) {
		print ""
		print "this tree against the base (router@base), the same runs:"
		table("router@base", "router")
		print ""
		print "the base against its own ReverseProxy:"
		table("reverseproxy@base", "router@base")
	}
	for (mi = 1; mi <= 2; mi++) {
		m = mi == 1 ? "rss-64-open-MB" : "peak-rss-MB"; n = 0
		delete ms
		for (k = 1; k <= nrss; k++) if ((k, m) in rss) ms[++n] = rss[k, m]
		if (n == 0) continue
		sort(ms, n)
		printf "router, 64 streams open: %-15s %6.1f  [%.1f-%.1f]\n", m, median(ms, n), ms[1], ms[n]
	}
}'
