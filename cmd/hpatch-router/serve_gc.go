//go:build linux

package main

import "runtime/debug"

// How serve collects garbage. The router's garbage is per request (the
// request body, SSE frames, carriers) and what it keeps is small, so Go's
// default GOGC=100 collects often for little: serve collects at
// serveGCPercent, which took the collector's share of a request at
// concurrency 1 from about 1.44x to 1.34x the ReverseProxy's CPU on the
// plain leg with no change in RSS with 64 streams open (about 31 MB).
//
// No memory limit: a soft limit set near the router's working size is a
// cliff. Once the live heap approaches it (a long-lived router keeps its
// threads' replay entries and retained-script records), the runtime
// collects continuously: with 48 MiB and 28 MB live, the latency bench's
// CPU per request went to 3.6x the ReverseProxy's. With GOGC alone the heap
// stays within serveGCPercent of what is live, however large that is.
//
// Fixed, not flags: the Go runtime's own GOGC and GOMEMLIMIT, when set,
// win, and are the knobs users already know.
const serveGCPercent = 200

// tuneGC applies serve's collection setting unless the environment sets
// Go's own GOGC. GOMEMLIMIT, when set, is the runtime's to apply.
func tuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(serveGCPercent)
	}
}
