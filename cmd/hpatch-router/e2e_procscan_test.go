package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"hpatch-router/router/routertest"
)

// TestE2EProcScan runs a worker carrier and a template through the real
// Codex while a goroutine reads every /proc/<pid>/cmdline (what any local
// user can read) and records who carries a secret marker from the body.
// Nothing the helper started — the worker, the interpreter, the commands
// the script runs — may carry it (13.4). What does carry it is Codex's
// own wrapper around the command (its sandbox launcher, the shell that
// runs cmd) and the helper until it execs: logged, and written down in the
// README's security model.
func TestE2EProcScan(t *testing.T) {
	codex := codexBin(t)
	marker := "hpatch-procscan-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	up := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{
		shellStep("call_worker", 1, "#!python3\nimport time, subprocess\nsecret = '"+marker+"'\nsubprocess.run(['sleep', '2'])\nprint('worker done')\n"),
		shellStep("call_tmpl", 1, "#!cmd=printf 'x\\n' | {.} | cat\n# "+marker+"\nread -r v\nsleep 2\necho \"tmpl done $v\"\n"),
		{Message: "final answer"},
	}})
	bin := e2eBins.binDir(t)
	runtimeDir := t.TempDir()
	rp := startRouter(t, routerSpec{binDir: bin, upstream: up.URL(), runtimeDir: runtimeDir})
	home := writeCodexHome(t, configCatalog, rp.URL+"/v1")

	ctx, stop := context.WithCancel(context.Background())
	var mu sync.Mutex
	holders := map[string]bool{} // "comm: argv[0] argv[1]" of each process that carried the marker
	sawWorker := false
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			entries, _ := os.ReadDir("/proc")
			for _, e := range entries {
				dir := filepath.Join("/proc", e.Name())
				cmdline, err := os.ReadFile(filepath.Join(dir, "cmdline"))
				if err != nil {
					continue
				}
				argv := strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00")
				mu.Lock()
				if len(argv) > 1 && argv[0] == "shell" && strings.HasPrefix(argv[len(argv)-1], "/dev/fd/") {
					sawWorker = true
				}
				if strings.Contains(string(cmdline), marker) {
					comm, _ := os.ReadFile(filepath.Join(dir, "comm"))
					holders[strings.TrimSpace(string(comm))+": "+strings.Join(argv[:min(2, len(argv))], " ")] = true
				}
				mu.Unlock()
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	run := runCodex(t, codex, home, bin, runtimeDir, t.TempDir(), "scan")
	stop()
	wg.Wait()
	if run.ExitCode != 0 {
		t.Fatalf("codex exit %d:\n%s", run.ExitCode, run.Output)
	}
	posts := up.Posts()
	checkCallOutput(t, posts, callExpect{CallID: "call_worker", Output: []string{"worker done"}})
	checkCallOutput(t, posts, callExpect{CallID: "call_tmpl", Output: []string{"tmpl done x"}})
	if !sawWorker {
		t.Fatal("the scan never saw a worker (shell … /dev/fd/N) running; it proves nothing")
	}
	for h := range holders {
		t.Logf("carried the body in its command line: %s", h)
		// The worker names itself hpatch-router; the helper ("shell")
		// holds the argv its shell gave it only until it execs.
		if strings.HasPrefix(h, "hpatch-router:") || strings.HasPrefix(h, "python3") || strings.HasPrefix(h, "sleep") || strings.HasPrefix(h, "cat") {
			t.Errorf("a process the helper started carries the body: %s", h)
		}
	}
}
