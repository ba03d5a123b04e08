package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestTuneGC: serve's collection settings apply unless the environment
// sets Go's own GOGC or GOMEMLIMIT.
func TestTuneGC(t *testing.T) {
	gc, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(gc); debug.SetMemoryLimit(limit) })
	for _, tt := range []struct {
		env   map[string]string
		gc    int
		limit int64
	}{
		{nil, serveGCPercent, serveMemoryLimit},
		{map[string]string{"GOGC": "100"}, 100, serveMemoryLimit},
		{map[string]string{"GOMEMLIMIT": "1GiB"}, serveGCPercent, math.MaxInt64},
		{map[string]string{"GOGC": "off", "GOMEMLIMIT": "1GiB"}, 100, math.MaxInt64},
	} {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
		tuneGC(func(k string) string { return tt.env[k] })
		if got := debug.SetGCPercent(100); got != tt.gc {
			t.Errorf("env %v: GOGC %d, want %d", tt.env, got, tt.gc)
		}
		if got := debug.SetMemoryLimit(-1); got != tt.limit {
			t.Errorf("env %v: memory limit %d, want %d", tt.env, got, tt.limit)
		}
	}
}
