package worker_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hpatch-router/worker"
)

// bins holds the real binaries built once for the package's tests.
type bins struct {
	dir, router, helper string
}

var built bins // set once by TestMain, read-only afterwards

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hpatch-worker-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	built = bins{dir: dir, router: filepath.Join(dir, "hpatch-router"), helper: filepath.Join(dir, "shell")}
	for _, b := range []struct{ out, pkg string }{{built.router, "hpatch-router/cmd/hpatch-router"}, {built.helper, "hpatch-router/cmd/shell-helper"}} {
		cmd := exec.Command("go", "build", "-o", b.out, b.pkg)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build", b.pkg, err)
			os.RemoveAll(dir)
			os.Exit(1)
		}
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
	root := t.TempDir()
	if err := os.Chmod(root, 0o700); err != nil {
		t.Fatal(err)
	}
	rt, err := worker.NewRuntime(root, worker.WithExecutable(built.router))
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

func TestSmoke(t *testing.T) {
	e := newEnv(t)
	r := e.run("", "bash", "echo hi; echo err >&2; exit 3")
	if r.stdout != "hi\n" || r.stderr != "err\n" || r.code != 3 {
		t.Fatalf("got %+v", r)
	}
	r = e.run("data\n", "python3", "import sys\nprint(sys.stdin.read().upper(), end='')\nprint(sys.argv)\n")
	t.Logf("%+v", r)
}
