//go:build linux

package worker

import (
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// The run's stop ends the watch and leaves the signals caught: the worker
// exits right after, and a signal in that last stretch must not turn the
// run's status into death by the signal. SIGPIPE is the probe because the
// test binary survives it either way: caught, it reaches the channel;
// handed back to the runtime (signal.Stop), it would be dropped.
func TestRunEndLeavesSignalsCaught(t *testing.T) {
	ch := notifySignals()
	t.Cleanup(func() { signal.Stop(ch) })
	r := newRun(nil, nil, nil, func(r *run) { r.procs = newProcs(false, newFakeOS(1)) })
	stop := r.watchSignals(ch)
	stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGPIPE); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-ch:
		if s != syscall.SIGPIPE {
			t.Fatalf("caught %v, want SIGPIPE", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a signal after the run's end was not caught: stop handed the signals back to their default actions")
	}
}
