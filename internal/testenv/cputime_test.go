//go:build unix

package testenv

import (
	"testing"
	"time"
)

// CPUTime counts the work this process does and not the time it sleeps:
// spinning makes it grow (however long the machine's load makes that
// take), a sleep hardly does.
func TestCPUTimeCountsWorkNotSleep(t *testing.T) {
	start := CPUTime()
	for bound := time.Now().Add(10 * time.Second); CPUTime()-start < 20*time.Millisecond; {
		if time.Now().After(bound) {
			t.Fatalf("CPUTime grew by %s in 10s of spinning", CPUTime()-start)
		}
	}
	before := CPUTime()
	time.Sleep(100 * time.Millisecond)
	if slept := CPUTime() - before; slept > 50*time.Millisecond {
		t.Errorf("CPUTime grew by %s over a 100ms sleep", slept)
	}
}
