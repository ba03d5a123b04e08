//go:build linux

package worker_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hpatch-router/worker"

	"hpatch-router/internal/testenv"
)

// Benchmarks for scripts/bench-worker.sh: each pair runs the same work
// through the helper → worker and through the plain tool, as whole
// processes, so ns/op ratios are what a Codex command pays.

const benchPy = "import sys\ntotal = 0\nfor i in range(1000):\n    total += i\nprint(total)\n"

// realPython is the python3 interpreter itself, not a pyenv shim (a bash
// script that costs more than the interpreter's start):
// $HPATCH_BENCH_PYTHON when scripts/bench-worker.sh resolved it, else
// sys.executable.
var realPython = sync.OnceValue(func() string {
	if p := os.Getenv("HPATCH_BENCH_PYTHON"); p != "" {
		return p
	}
	out, err := exec.Command("python3", "-c", "import sys;print(sys.executable)").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
})

type benchEnv struct {
	root, thread string
	environ      []string
	dir          string
}

func newBenchEnv(b *testing.B) *benchEnv {
	b.Helper()
	root := b.TempDir()
	rt, err := worker.NewRuntime(root, worker.WithExecutable(built.router))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rt.Close() })
	if err := rt.PrepareThread(context.Background(), "bench"); err != nil {
		b.Fatal(err)
	}
	e := &benchEnv{root: root, thread: "bench", dir: b.TempDir()}
	path := os.Getenv("PATH")
	if py := realPython(); py != "" {
		path = filepath.Dir(py) + ":" + path // skip a slow pyenv shim
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") {
			e.environ = append(e.environ, kv)
		}
	}
	e.environ = append(e.environ, "PATH="+path, "HPATCH_RUNTIME_DIR="+root, "CODEX_THREAD_ID=bench")
	var lines strings.Builder
	for i := 1; i <= 10000; i++ {
		fmt.Fprintf(&lines, "line %d\n", i)
	}
	if err := os.WriteFile(filepath.Join(e.dir, "10k.txt"), []byte(lines.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return e
}

func (e *benchEnv) loop(b *testing.B, path string, args ...string) {
	for b.Loop() {
		cmd := exec.Command(path, args[1:]...)
		cmd.Args[0] = args[0]
		cmd.Env, cmd.Dir = e.environ, e.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
}

func lookBench(b *testing.B, name string) string { return testenv.NeedTool(b, name) }

func BenchmarkShellBashEchoHi(b *testing.B) {
	newBenchEnv(b).loop(b, built.helper, "shell", "bash", "echo hi")
}

func BenchmarkBashCEchoHi(b *testing.B) {
	newBenchEnv(b).loop(b, lookBench(b, "bash"), "bash", "-c", "echo hi")
}

func BenchmarkShellPython(b *testing.B) {
	if realPython() == "" {
		testenv.Missing(b, "python3 does not run")
	}
	newBenchEnv(b).loop(b, built.helper, "shell", "python3", benchPy)
}

func BenchmarkPythonC(b *testing.B) {
	if realPython() == "" {
		testenv.Missing(b, "python3 does not run")
	}
	newBenchEnv(b).loop(b, realPython(), "python3", "-c", benchPy)
}

func BenchmarkShellHread10k(b *testing.B) {
	newBenchEnv(b).loop(b, built.helper, "shell", "bash", "hread 10k.txt")
}

func BenchmarkCatN10k(b *testing.B) {
	newBenchEnv(b).loop(b, lookBench(b, "cat"), "cat", "-n", "10k.txt")
}

func BenchmarkBashCCatN10k(b *testing.B) {
	newBenchEnv(b).loop(b, lookBench(b, "bash"), "bash", "-c", "cat -n 10k.txt")
}

// BenchmarkEchoHiBreakdown shows where `shell bash 'echo hi'` spends its
// time. Each iteration runs, interleaved so a changing machine load hits
// all of them alike: the whole call; the helper alone, refusing a thread
// without a runtime (process start, root and thread lookup); and the
// router binary refusing a missing thread id at its first check (process
// start, Go runtime and package initialisation). The worker is only ever
// started through the helper (its body comes on the helper's sealed
// memfd), so the rest — the helper's launcher check, memfd and exec, the
// worker's authentication, evaluation and end-of-run checks — is whole
// minus the two.
func BenchmarkEchoHiBreakdown(b *testing.B) {
	e := newBenchEnv(b)
	noThread := slices.DeleteFunc(slices.Clone(e.environ), func(kv string) bool { return strings.HasPrefix(kv, "CODEX_THREAD_ID=") })
	noRuntime := append(slices.Clone(e.environ), "CODEX_THREAD_ID=no-runtime-here")
	var whole, start, helper time.Duration
	timed := func(path string, env []string, code int) time.Duration {
		cmd := exec.Command(path, "bash", "echo hi")
		cmd.Args[0] = "shell"
		cmd.Env, cmd.Dir = env, e.dir
		t0 := time.Now()
		out, err := cmd.CombinedOutput()
		d := time.Since(t0)
		if got := exitCode(err); got != code {
			b.Fatalf("%s: exit %d, want %d\n%s", path, got, code, out)
		}
		return d
	}
	n := 0
	for b.Loop() {
		whole += timed(built.helper, e.environ, 0)
		start += timed(built.router, noThread, 127)
		helper += timed(built.helper, noRuntime, 127)
		n++
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(n) / 1e6 }
	b.ReportMetric(ms(whole), "ms-whole")
	b.ReportMetric(ms(helper), "ms-helper-alone")
	b.ReportMetric(ms(start), "ms-router-start")
	b.ReportMetric(ms(whole-helper-start), "ms-rest")
}
