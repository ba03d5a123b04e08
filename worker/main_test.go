//go:build linux

package worker_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hpatch-router/internal/testenv"
	"hpatch-router/worker"
)

// bins holds the real binaries built once for the package's tests.
type bins struct {
	dir, router, helper string
}

var built bins // set once by TestMain, read-only afterwards

// runTokenVar marks every process this test binary starts: the helper,
// the worker and their children inherit it, so alive finds this run's
// processes only. Another run of these tests — another user's, or one
// started at the same time — runs the same marker commands, and must be
// neither reported nor killed.
const runTokenVar = "HPATCH_WORKER_TEST_RUN"

// runToken is runTokenVar's entry in this run's environment.
var runToken = runTokenVar + "=" + strconv.Itoa(os.Getpid())

func TestMain(m *testing.M) {
	os.Setenv(runTokenVar, strconv.Itoa(os.Getpid()))
	dir, err := os.MkdirTemp("", "hpatch-worker-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	built = bins{dir: dir, router: filepath.Join(dir, "hpatch-router"), helper: filepath.Join(dir, "shell")}
	err = testenv.Build(built.helper, "hpatch-router/cmd/shell-helper")
	if err == nil {
		err = testenv.Build(built.router, "hpatch-router/cmd/hpatch-router")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is one prepared runtime root with a thread, ready to run the helper.
type env struct {
	t      *testing.T
	root   string
	thread string
	rt     *worker.Runtime
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvFor(t, t.TempDir(), built.router)
}

var timeZero = time.Unix(1, 0)

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

func newEnvFor(t *testing.T, root, exe string) *env {
	t.Helper()
	if err := os.Chmod(root, 0o700); err != nil {
		t.Fatal(err)
	}
	rt, err := worker.NewRuntime(root, worker.WithExecutable(exe))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	thread := "thread-" + strings.ReplaceAll(t.Name(), "/", "_")
	if err := rt.PrepareThread(context.Background(), thread); err != nil {
		t.Fatal(err)
	}
	return &env{t: t, root: root, thread: thread, rt: rt}
}

func (e *env) environ(extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "HPATCH_RUNTIME_DIR=") || strings.HasPrefix(kv, "CODEX_THREAD_ID=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "HPATCH_RUNTIME_DIR="+e.root, "CODEX_THREAD_ID="+e.thread)
}

// command returns the helper started like Codex would: `shell ARGS…`.
func (e *env) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, built.helper, args...)
	cmd.Args[0] = "shell"
	cmd.Env = e.environ()
	return cmd
}

type result struct {
	stdout, stderr string
	code           int
}

func (e *env) run(stdin string, args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := e.command(ctx, args...)
	var out, errb bytes.Buffer
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

// alive lists the pids whose command line contains every word of marker
// (e.g. "sleep 3017"), so a test can prove a descendant is gone.
func alive(marker string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	want := strings.ReplaceAll(marker, " ", "\x00")
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(data), want) {
			continue
		}
		environ, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !slices.Contains(strings.Split(string(environ), "\x00"), runToken) {
			continue // not this run's (or not readable: another user's)
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && strings.HasPrefix(string(stat[i:]), ") Z") {
			continue
		}
		var pid int
		fmt.Sscan(e.Name(), &pid)
		pids = append(pids, pid)
	}
	return pids
}

// alive reports only this run's processes: a process running the same
// marker command without this run's token (another user's test run, or
// one started alongside) is not reported, so track never kills it.
func TestAliveSeesOnlyThisRun(t *testing.T) {
	const marker = "sleep 3099"
	foreign := exec.Command("sleep", "3099")
	foreign.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return kv == runToken })
	must(t, foreign.Start())
	defer func() { foreign.Process.Kill(); foreign.Wait() }()
	ours := exec.Command("sleep", "3099")
	must(t, ours.Start())
	defer func() { ours.Process.Kill(); ours.Wait() }()
	waitRunning(t, marker)
	if got := alive(marker); !slices.Equal(got, []int{ours.Process.Pid}) {
		t.Fatalf("alive(%q) = %v, want only this run's %d (not %d)", marker, got, ours.Process.Pid, foreign.Process.Pid)
	}
}

// track claims marker for one test: processes left matching it by an
// earlier failed run are killed now, and whatever matches when the test
// ends is killed then, so one failure never leaks into another test.
func track(t *testing.T, marker string) string {
	t.Helper()
	killAll := func() {
		for _, p := range alive(marker) {
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
	killAll()
	t.Cleanup(killAll)
	return marker
}

// waitGone waits up to d for no process to match marker.
func waitGone(t *testing.T, marker string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if len(alive(marker)) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	pids := alive(marker)
	for _, p := range pids {
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", p))
		t.Logf("leftover %d: %s\n%s", p, stat, status)
		syscall.Kill(p, syscall.SIGKILL)
	}
	t.Fatalf("%q still running after %v: pids %v", marker, d, pids)
}
