//go:build unix

package testenv

import (
	"syscall"
	"testing"
	"time"
)

// CPUTime is the process's user+system CPU time. Benchmarks report it per
// op as cpu-ns/op because wall time on a shared CI machine mostly measures
// the neighbours; CPU time (GC included) is what the code really costs.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// LoopCPU runs op in the benchmark loop and reports CPU ns per op.
func LoopCPU(b *testing.B, op func()) {
	start := CPUTime()
	n := 0
	for b.Loop() {
		op()
		n++
	}
	if n > 0 {
		b.ReportMetric(float64(CPUTime()-start)/float64(n), "cpu-ns/op")
	}
}
