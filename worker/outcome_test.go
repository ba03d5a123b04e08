//go:build linux

package worker

import (
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// Guards one terminal result: the evaluation's exit, a cancellation
// signal, an output overflow and a broken stdout race through run.finish;
// fired together, many times, exactly one wins and the exit status and the
// worker's stderr line agree with it. Without the single completion path a
// run could report the overflow line with the script's status, print two
// lines, or return a status no outcome chose.
func TestOneTerminalResult(t *testing.T) {
	want := map[string]struct {
		code int
		line string
	}{
		"exit":        {3, ""},
		"overflow":    {ExitOverflow, "shell: output exceeded"},
		"broken-pipe": {141, ""},
		"signal":      {143, "shell: stopped by SIGTERM"},
	}
	seen := map[string]int{}
	for i := 0; i < 300; i++ {
		outR, outW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		errR, errW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		noProcs := func(r *run) { r.procs = newProcs(false, newFakeOS(1)) }
		r := newRun(nil, outW, errW, noProcs)
		var wg sync.WaitGroup
		var code int
		start := make(chan struct{})
		fire := func(f func()) {
			wg.Add(1)
			go func() { defer wg.Done(); <-start; f() }()
		}
		fire(func() { code = r.complete(3) })
		fire(r.out.onOver)
		fire(r.out.onBroken)
		fire(func() { r.finish("signal", 128+int(syscall.SIGTERM), syscall.SIGTERM) })
		close(start)
		wg.Wait()
		outW.Close()
		errW.Close()
		io.ReadAll(outR)
		stderr, _ := io.ReadAll(errR)
		outR.Close()
		errR.Close()
		w, ok := want[r.reason]
		if !ok {
			t.Fatalf("run %d: unknown outcome %q", i, r.reason)
		}
		seen[r.reason]++
		lines := strings.Count(string(stderr), "\n")
		if code != w.code || (w.line == "") != (lines == 0) || lines > 1 || !strings.HasPrefix(string(stderr), w.line) {
			t.Fatalf("run %d: outcome %q, exit %d (want %d), stderr %q", i, r.reason, code, w.code, stderr)
		}
	}
	t.Logf("winners over 300 races: %v", seen)
}
