package main

import "runtime/debug"

// How serve collects garbage. The router's garbage is per request (the
// request body, SSE frames, carriers) and what it keeps is small (about
// 28 MB of RSS with 64 streams open, binary included), so Go's default
// GOGC=100 collects often for little. serve collects at serveGCPercent and
// keeps the heap under the soft serveMemoryLimit, which stays below the
// 60 MB the router may use with 64 streams open. These are fixed, not
// flags: the Go runtime's own GOGC and GOMEMLIMIT, when set, win, and
// are the knobs users already know.
const (
	serveGCPercent   = 400
	serveMemoryLimit = 48 << 20
)

// tuneGC applies serve's collection settings unless the environment sets
// Go's own. A request body larger than the limit is still served: the
// limit is soft, so near it the runtime collects more often (at most half
// the CPU) instead of failing.
func tuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(serveGCPercent)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(serveMemoryLimit)
	}
}
