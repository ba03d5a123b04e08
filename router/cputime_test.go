//go:build unix

package router

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system CPU time. Benchmarks report it per
// op as cpu-ns/op because wall time on a shared CI machine mostly measures
// the neighbours; CPU time (GC included) is what the code really costs.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loopCPU runs op in the benchmark loop and reports CPU ns per op.
func loopCPU(b *testing.B, op func()) {
	start := cpuTime()
	n := 0
	for b.Loop() {
		op()
		n++
	}
	if n > 0 {
		b.ReportMetric(float64(cpuTime()-start)/float64(n), "cpu-ns/op")
	}
}
