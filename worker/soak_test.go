//go:build linux

package worker_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// soakScripts mix what ends a run: a normal exit, a cancellation while a
// grandchild holds stdout, an output overflow with a grandchild, children
// and grandchildren left in the background, a process that detaches with
// setsid, and a private command in a pipeline.
var soakScripts = []struct {
	script string
	cancel bool // SIGTERM once the script printed "started"
	code   int
}{
	{"echo ok; exit 3", false, 3},
	{"bash -c 'sleep 3031 & echo started; wait'", true, 143},
	{"bash -c 'sleep 3031 & exec yes'", false, 125},
	{"sleep 3031 & bash -c 'sleep 3031 >/dev/null 2>&1 &'; echo bg", false, 0},
	{"setsid sleep 3031 >/dev/null 2>&1 </dev/null & sleep 0.05; echo detached", false, 0},
	{"hread /etc/passwd | wc -l >/dev/null", false, 0},
}

// TestSoak runs 500 sequential and then 50 concurrent worker runs through
// the real helper, mixing soakScripts, within 2 minutes. Each run gets its
// own session and a marker in its environment; afterwards no process of
// any run may be left (a /proc scan for the runs' sessions and the
// marker, which survives setsid) and this process must hold no more
// descriptors than before. It guards process-tree cleanup and the single
// completion path under load: a leaked grandchild, a stray pipe end, or a
// wrong or doubled exit status fails it.
//
// It is skipped under -short and runs only with HPATCH_SOAK=1: on two
// cores the whole test took 32 s idle but 90 s while other builds shared
// them (the 500 sequential runs cost 60 to 180 ms each: helper and router
// start, bash, polling for what the scripts leave behind), so it cannot
// reliably finish in 2 minutes on a loaded machine, and a default
// `make test` should not pay for it unasked (.ci/run asks). The
// sequential phase stops starting runs after 90 s, leaving the rest of
// the 2 minutes to the concurrent phase. HPATCH_SOAK_RUNS scales the
// sequential count.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test skipped under -short")
	}
	if os.Getenv("HPATCH_SOAK") != "1" {
		t.Skip("set HPATCH_SOAK=1 to run the soak test (500 sequential + 50 concurrent runs, at most 2 minutes)")
	}
	sequential, concurrent := 500, 50
	if n, err := strconv.Atoi(os.Getenv("HPATCH_SOAK_RUNS")); err == nil && n > 0 {
		sequential = n
	}
	track(t, "sleep 3031")
	e := newEnv(t)
	var nonce [8]byte
	rand.Read(nonce[:])
	marker := "HPATCH_SOAK_RUN=" + hex.EncodeToString(nonce[:])

	var mu sync.Mutex
	var sessions []int
	one := func(i int) error {
		s := soakScripts[i%len(soakScripts)]
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := e.command(ctx, "bash", s.script)
		cmd.Env = append(cmd.Env, marker)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		cmd.Stderr = io.Discard
		if err := cmd.Start(); err != nil {
			return err
		}
		mu.Lock()
		sessions = append(sessions, cmd.Process.Pid)
		mu.Unlock()
		r := bufio.NewReader(out)
		if s.cancel {
			// The worker catches signals before it authenticates, and
			// "started" comes later still: the status is exactly 143.
			if l, _ := r.ReadString('\n'); l != "started\n" {
				cmd.Process.Kill()
				cmd.Wait()
				return fmt.Errorf("run %d %q: read %q before cancelling", i, s.script, l)
			}
			cmd.Process.Signal(syscall.SIGTERM)
		}
		io.Copy(io.Discard, r)
		if code := exitCode(cmd.Wait()); code != s.code {
			return fmt.Errorf("run %d %q: exit %d, want %d", i, s.script, code, s.code)
		}
		return nil
	}

	if err := one(0); err != nil { // warm up: lazily opened descriptors
		t.Fatal(err)
	}
	fdsBefore := openFDs()
	start := time.Now()
	seqDeadline := start.Add(90 * time.Second) // leaves room for the concurrent phase
	done := 0
	for ; done < sequential && time.Now().Before(seqDeadline); done++ {
		if err := one(done); err != nil {
			t.Fatal(err)
		}
	}
	seqTime := time.Since(start)
	var wg sync.WaitGroup
	errs := make(chan error, concurrent)
	for i := 0; i < concurrent; i++ {
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
	t.Logf("%d sequential runs in %v, %d concurrent in %v", done, seqTime.Round(time.Millisecond), concurrent, (time.Since(start) - seqTime).Round(time.Millisecond))
	// The 2-minute bound caps the work, it is not a verdict: a loaded
	// machine runs fewer sequential rounds, and what is asserted (no
	// leftover process, no leaked descriptor, one correct status per run)
	// holds for every round that ran.
	if done < sequential {
		t.Logf("time bound reached after %d of %d sequential runs", done, sequential)
	}

	left := leftovers(sessions, marker)
	for deadline := time.Now().Add(5 * time.Second); len(left) > 0 && time.Now().Before(deadline); left = leftovers(sessions, marker) {
		time.Sleep(50 * time.Millisecond)
	}
	if len(left) > 0 {
		for _, pid := range left {
			stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			t.Logf("leftover: %s", stat)
			syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Errorf("%d processes of the runs are still alive", len(left))
	}
	if after := openFDs(); after > fdsBefore {
		t.Errorf("descriptors: %d before, %d after", fdsBefore, after)
	}
}

// leftovers scans /proc for live processes in one of the runs' sessions
// or carrying the runs' environment marker (which survives setsid).
func leftovers(sessions []int, marker string) []int {
	in := map[int]bool{}
	for _, s := range sessions {
		in[s] = true
	}
	return liveProcs(func(pid int, stat []string) bool {
		sid, _ := strconv.Atoi(stat[3])
		env, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		return in[sid] || strings.Contains(string(env), marker+"\x00")
	})
}

// liveProcs lists the running (not zombie) processes that match accepts;
// stat are the fields of /proc/PID/stat after the command name (state,
// ppid, pgrp, session, …).
func liveProcs(match func(pid int, stat []string) bool) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, ent := range entries {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + ent.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(stat)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) >= 4 && f[0] != "Z" && match(pid, f) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func openFDs() int {
	entries, _ := os.ReadDir("/proc/self/fd")
	return len(entries)
}
