package worker_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestSoak mixes normal exits, cancellations, overflows and grandchildren
// through the real helper and worker, sequentially and concurrently, then
// requires that no process of theirs is left and no descriptor leaked in
// this process. It is opt-in (HPATCH_SOAK=1; the counts scale with
// HPATCH_SOAK_RUNS, default 100 sequential and 20 concurrent) because it
// loads the shared CPUs.
func TestSoak(t *testing.T) {
	if testing.Short() || os.Getenv("HPATCH_SOAK") != "1" {
		t.Skip("set HPATCH_SOAK=1 to run the soak test")
	}
	runs := 100
	fmt.Sscan(os.Getenv("HPATCH_SOAK_RUNS"), &runs)
	track(t, "sleep 3031")
	e := newEnv(t)
	fdsBefore := openFDs()
	scripts := []struct {
		script string
		cancel bool
		code   int
	}{
		{"echo ok; exit 3", false, 3},
		{"bash -c 'sleep 3031 & echo started; wait'", true, 143},
		{"bash -c 'sleep 3031 & exec yes'", false, 125},
		{"sleep 3031 & echo bg", false, 0},
		{"hread /etc/hostname | wc -l", false, 0},
	}
	one := func(i int) error {
		s := scripts[i%len(scripts)]
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := e.command(ctx, "bash", s.script)
		cmd.Stdout, cmd.Stderr = nil, nil
		if err := cmd.Start(); err != nil {
			return err
		}
		if s.cancel {
			time.Sleep(100 * time.Millisecond)
			cmd.Process.Signal(syscall.SIGTERM)
		}
		// A signal that beats the worker's handler (still in the helper or
		// the Go runtime start) ends the process by that signal (-1 here).
		if code := exitCode(cmd.Wait()); code != s.code && !(s.cancel && code == -1) {
			return fmt.Errorf("run %d %q: exit %d, want %d", i, s.script, code, s.code)
		}
		return nil
	}
	deadline := time.Now().Add(2 * time.Minute)
	for i := 0; i < runs && time.Now().Before(deadline); i++ {
		if err := one(i); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, runs/5)
	for i := 0; i < runs/5; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- one(i) }()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	waitGone(t, "sleep 3031", 5*time.Second)
	if after := openFDs(); after > fdsBefore {
		t.Errorf("descriptors: %d before, %d after", fdsBefore, after)
	}
}

func openFDs() int {
	entries, _ := os.ReadDir("/proc/self/fd")
	return len(entries)
}
