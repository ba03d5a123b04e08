package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestTuneGC: serve's GOGC applies unless the environment sets Go's own,
// and serve sets no memory limit of its own (one near the working size
// makes the collector run continuously once the live heap reaches it).
func TestTuneGC(t *testing.T) {
	gc, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(gc); debug.SetMemoryLimit(limit) })
	for _, tt := range []struct {
		env map[string]string
		gc  int
	}{
		{nil, serveGCPercent},
		{map[string]string{"GOGC": "100"}, 100},
		{map[string]string{"GOMEMLIMIT": "1GiB"}, serveGCPercent},
		{map[string]string{"GOGC": "off"}, 100},
	} {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
		tuneGC(func(k string) string { return tt.env[k] })
		if got := debug.SetGCPercent(100); got != tt.gc {
			t.Errorf("env %v: GOGC %d, want %d", tt.env, got, tt.gc)
		}
		if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
			t.Errorf("env %v: serve set a memory limit (%d)", tt.env, got)
		}
	}
}
