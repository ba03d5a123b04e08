#!/bin/sh
# Added latency through hpatch-router versus a plain httputil.ReverseProxy,
# both in front of the same in-process fake upstream and sent the same real
# Codex request (router/server_bench_test.go, BenchmarkLatency). Prints time
# to first byte and to the end of the stream, p50 and p99, at concurrency 1
# and 64, and the router/ReverseProxy ratios (the median of COUNT runs).
#
#   scripts/bench-latency.sh            # BENCHTIME=1000x COUNT=3
#   BENCHTIME=3000x COUNT=5 scripts/bench-latency.sh
set -eu
cd "$(dirname "$0")/.."
BENCHTIME=${BENCHTIME:-1000x}
COUNT=${COUNT:-3}
out=$(go test -run '^$' -bench 'BenchmarkLatency' -benchtime "$BENCHTIME" -count "$COUNT" ./router/)
printf '%s\n' "$out" | grep '^BenchmarkLatency' >&2 || { printf '%s\n' "$out" >&2; exit 1; }
printf '%s\n' "$out" | awk '
function median(key,    n, i, j, t, a) {
	n = cnt[key]
	for (i = 1; i <= n; i++) a[i] = val[key, i]
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
/^BenchmarkLatency\// {
	split($1, p, "/"); proxy = p[2]; sub(/^proxy=/, "", proxy)
	c = p[3]; sub(/^c=/, "", c); sub(/-[0-9]+$/, "", c)
	for (i = 3; i < NF; i += 2) {
		m = $(i + 1)
		if (m !~ /-µs$/) continue
		k = proxy SUBSEP c SUBSEP m
		cnt[k]++; val[k, cnt[k]] = $i
		metrics[m] = 1; concs[c] = 1
	}
}
END {
	printf "%-6s %-14s %14s %14s %8s\n", "conc", "metric", "reverseproxy", "router", "ratio"
	split("ttfb-p50-µs ttfb-p99-µs full-p50-µs full-p99-µs", order, " ")
	split("1 64", cs, " ")
	for (ci = 1; ci <= 2; ci++) for (mi = 1; mi <= 4; mi++) {
		c = cs[ci]; m = order[mi]
		b = median("reverseproxy" SUBSEP c SUBSEP m); r = median("router" SUBSEP c SUBSEP m)
		printf "%-6s %-14s %14.0f %14.0f %8s\n", c, m, b, r, (b > 0 ? sprintf("%.2fx", r / b) : "-")
	}
}'
