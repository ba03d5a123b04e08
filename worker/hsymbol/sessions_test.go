//go:build linux

package hsymbol

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"hpatch-router/worker/internal/workspacetest"
	"hpatch-router/worker/privcmd"
)

// fakeRun is a run whose gopls is the fake server (fakeserver_test.go):
// its sessions, machine, workspace and the servers' log.
type fakeRun struct {
	pool *Sessions
	m    *machine
	dir  string
	path string
	log  fakeLog
	vars []string // extra environment of every call
}

func newFakeRun(t *testing.T, vars ...string) *fakeRun {
	m := writableMachine(t)
	f := &fakeRun{pool: newSessions(m.settings()), m: m, dir: workspacetest.Copy(t), path: fakeServerPath(t),
		log: fakeLog(filepath.Join(t.TempDir(), "servers.log"))}
	// A -race test binary, as the fake servers are, sleeps a second at exit
	// unless told not to.
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	f.vars = append([]string{fakeServerEnv + "=" + string(f.log)}, vars...)
	t.Cleanup(f.pool.Close)
	return f
}

// call runs one hsymbol command of the run in cwd (relative to the
// workspace) with ctx.
func (f *fakeRun) call(ctx context.Context, cwd string, args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	env := testEnv(filepath.Join(f.dir, cwd), &out, &errb, f.path, f.m)
	// The worker exports PWD as the evaluation's cwd, as bash does.
	env.Environ = append(env.Environ, append(f.vars, "PWD="+env.Dir)...)
	code := f.pool.Run(ctx, env, append([]string{"hsymbol"}, args...))
	return out.String(), errb.String(), code
}

// checkEnded: every server the run started, the processes it left in its
// group, and its private directory are gone.
func (f *fakeRun) checkEnded(t *testing.T) {
	t.Helper()
	for _, pid := range f.log.pids(t, "child") {
		gone(t, pid)
	}
	for _, pid := range f.log.pids(t, "start") {
		gone(t, pid)
		groupGone(t, pid)
	}
	f.m.checkCleanedUp(t)
}

const (
	rowNewCounter = `"main.go":17:f2d0 	c := util.NewCounter("hits")` + "\n"
	rowAdd        = `"main.go":18:5817 	c.Add(2)` + "\n"
)

// TestSessionsOneServerPerRun: calls of one run on two files, from two
// directories, share one server; each document is opened once; the run's
// end shuts the server down and nothing of it is left.
func TestSessionsOneServerPerRun(t *testing.T) {
	f := newFakeRun(t)
	steps := []struct {
		cwd  string
		args []string
		want string
	}{
		{args: []string{"def", "main.go", "17:f2d0", "NewCounter"}, want: rowNewCounter},
		{args: []string{"refs", "main.go", "18:5817", "Add"}, want: rowAdd},
		{cwd: "util", args: []string{"def", "util.go", "24:08b3", "NewCounter"},
			want: `"util.go":24:08b3 func NewCounter(name string) *Counter {` + "\n" +
				`"util.go":25:c2fa 	return &Counter{Name: name, total: Initial}` + "\n" + `"util.go":26:d10b }` + "\n"},
	}
	for i, s := range steps {
		out, errs, code := f.call(t.Context(), s.cwd, s.args...)
		if code != 0 || errs != "" || out != s.want {
			t.Fatalf("call %d: exit %d stderr %q stdout\n%s\nwant\n%s", i+1, code, errs, out, s.want)
		}
		if starts := f.log.pids(t, "start"); len(starts) != 1 || !running(starts[0]) {
			t.Fatalf("after call %d: servers started %v, want one, running", i+1, starts)
		}
	}
	if opened, changed := f.log.count(t, "open "), f.log.count(t, "change "); opened != 2 || changed != 0 {
		t.Errorf("%d documents opened and %d changed, want 2 opened (main.go once, util.go once): %q", opened, changed, f.log.lines(t))
	}
	f.pool.Close()
	if f.log.count(t, "exit") != 1 {
		t.Errorf("the idle server was not shut down politely: %q", f.log.lines(t))
	}
	f.checkEnded(t)
	if _, errs, code := f.call(t.Context(), "", steps[0].args...); code != 1 || errs != "hsymbol: "+errClosed.Error()+"\n" {
		t.Fatalf("a call after the run's end: exit %d stderr %q", code, errs)
	}
}

// TestSessionsReplaceAStaleServer: a change to a source file starts a new
// server (the old one shut down), a change elsewhere does not, another
// environment gets its own server, and a server that died between calls
// is started again with one line saying so.
func TestSessionsReplaceAStaleServer(t *testing.T) {
	f := newFakeRun(t)
	def := []string{"def", "main.go", "17:f2d0", "NewCounter"}
	steps := []struct {
		name      string
		before    func(t *testing.T)
		vars      []string
		starts    int
		stderr    string
		exitsSeen int // polite shutdowns logged so far
	}{
		{name: "first call", starts: 1},
		{name: "a file that is not a source changed", starts: 1, before: func(t *testing.T) {
			appendTo(t, filepath.Join(f.dir, "docs", "guide.md"), "more\n")
		}},
		{name: "a source file changed", starts: 2, exitsSeen: 1, before: func(t *testing.T) {
			appendTo(t, filepath.Join(f.dir, "util", "util.go"), "// more\n")
		}},
		{name: "the environment changed", starts: 3, exitsSeen: 1, vars: []string{"GOFLAGS=-tags=x"}},
		{name: "back to the first environment", starts: 3, exitsSeen: 1},
		{name: "the server died", starts: 4, exitsSeen: 1, before: func(t *testing.T) {
			starts := f.log.pids(t, "start")
			pid := starts[1] // the server of the first environment
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			gone(t, pid)
		}, stderr: "hsymbol: gopls exited since the previous call; starting it again\n"},
	}
	base := f.vars
	for _, s := range steps {
		if s.before != nil {
			s.before(t)
		}
		f.vars = append(slices.Clip(base), s.vars...)
		out, errs, code := f.call(t.Context(), "", def...)
		if code != 0 || errs != s.stderr || out != rowNewCounter {
			t.Fatalf("%s: exit %d stderr %q stdout %q", s.name, code, errs, out)
		}
		if n := len(f.log.pids(t, "start")); n != s.starts {
			t.Fatalf("%s: %d servers started, want %d: %q", s.name, n, s.starts, f.log.lines(t))
		}
		if n := f.log.count(t, "exit"); n != s.exitsSeen {
			t.Fatalf("%s: %d polite shutdowns, want %d", s.name, n, s.exitsSeen)
		}
	}
	f.pool.Close()
	f.checkEnded(t)
}

// TestSessionsRestartOnce: a reused server that exits when asked (it may
// have been on its way out) is started again once, with one line; a server
// that a call just started is not, its failure is the answer.
func TestSessionsRestartOnce(t *testing.T) {
	def := []string{"def", "main.go", "17:f2d0", "NewCounter"}
	note := "hsymbol: gopls exited since the previous call; starting it again\n"
	t.Run("reused", func(t *testing.T) {
		f := newFakeRun(t, fakeExitEnv+"=2")
		for i, wantStderr := range []string{"", note, note} {
			out, errs, code := f.call(t.Context(), "", def...)
			if code != 0 || errs != wantStderr || out != rowNewCounter {
				t.Fatalf("call %d: exit %d stderr %q stdout %q", i+1, code, errs, out)
			}
			if n := len(f.log.pids(t, "start")); n != i+1 {
				t.Fatalf("call %d: %d servers started, want %d", i+1, n, i+1)
			}
		}
		f.pool.Close()
		f.checkEnded(t)
	})
	t.Run("fresh", func(t *testing.T) {
		f := newFakeRun(t, fakeExitEnv+"=1")
		out, errs, code := f.call(t.Context(), "", def...)
		if code != 1 || errs != "hsymbol: gopls ended the session during textDocument/definition: it exited\n" || out != "" {
			t.Fatalf("exit %d stderr %q stdout %q", code, errs, out)
		}
		if n := len(f.log.pids(t, "start")); n != 1 {
			t.Fatalf("%d servers started, want 1", n)
		}
		f.checkEnded(t)
	})
}

// TestSessionsBoundedServers: a script that changes its environment on
// every call gets a new server each time, but no more than maxServers of
// them run; the least recently used idle one is shut down first.
func TestSessionsBoundedServers(t *testing.T) {
	f := newFakeRun(t)
	base := f.vars
	def := []string{"def", "main.go", "17:f2d0", "NewCounter"}
	call := func(i int) {
		t.Helper()
		f.vars = append(slices.Clip(base), fmt.Sprintf("ROUND=%d", i))
		if out, errs, code := f.call(t.Context(), "", def...); code != 0 || errs != "" || out != rowNewCounter {
			t.Fatalf("call %d: exit %d stderr %q stdout %q", i, code, errs, out)
		}
	}
	for i := range maxServers {
		call(i)
	}
	call(0) // the first server is now the most recently used
	call(maxServers)
	starts := f.log.pids(t, "start")
	if len(starts) != maxServers+1 {
		t.Fatalf("%d servers started, want %d", len(starts), maxServers+1)
	}
	gone(t, starts[1]) // the least recently used
	for i, pid := range starts {
		if i != 1 && !running(pid) {
			t.Errorf("server %d (pid %d) was ended, want only the least recently used", i, pid)
		}
	}
	if n := f.log.count(t, "exit"); n != 1 {
		t.Errorf("%d polite shutdowns, want 1", n)
	}
	f.pool.Close()
	f.checkEnded(t)
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err == nil {
		_, err = fh.WriteString(text)
		fh.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestSessionsConcurrentCalls: calls in a pipeline or in the background
// run at the same time; they share one server and each gets its answer.
func TestSessionsConcurrentCalls(t *testing.T) {
	f := newFakeRun(t)
	const calls = 8
	type result struct {
		out, errs string
		code      int
	}
	results := make([]result, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			args := []string{"def", "main.go", "17:f2d0", "NewCounter"}
			if i%2 == 1 {
				args = []string{"refs", "main.go", "18:5817", "Add"}
			}
			r := &results[i]
			r.out, r.errs, r.code = f.call(t.Context(), "", args...)
		})
	}
	wg.Wait()
	for i, r := range results {
		want := rowNewCounter
		if i%2 == 1 {
			want = rowAdd
		}
		if r.code != 0 || r.errs != "" || r.out != want {
			t.Errorf("call %d: exit %d stderr %q stdout %q", i, r.code, r.errs, r.out)
		}
	}
	if n := len(f.log.pids(t, "start")); n != 1 {
		t.Fatalf("%d servers started for %d concurrent calls, want 1", n, calls)
	}
	if n := f.log.count(t, "ask "); n != calls {
		t.Fatalf("the server was asked %d times, want %d", n, calls)
	}
	f.pool.Close()
	f.checkEnded(t)
}

// TestSessionsStopMidCall: a call cancelled while the server works kills
// the server and its group at once; so does the run's end while a call
// still waits (the worker gave up on the evaluation).
func TestSessionsStopMidCall(t *testing.T) {
	def := []string{"def", "main.go", "17:f2d0", "NewCounter"}
	tests := []struct {
		name     string
		stop     func(f *fakeRun, cancel context.CancelFunc)
		stderrRE string
	}{
		{name: "cancellation", stop: func(_ *fakeRun, cancel context.CancelFunc) { cancel() },
			stderrRE: `^hsymbol: gopls did not answer textDocument/definition in time: context canceled\n$`},
		{name: "the run ends", stop: func(f *fakeRun, _ context.CancelFunc) { f.pool.Close() },
			stderrRE: `^hsymbol: gopls ended the session during textDocument/definition: `},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeRun(t, fakeHangEnv+"=1")
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			type result struct {
				errs string
				code int
			}
			done := make(chan result, 1)
			go func() {
				_, errs, code := f.call(ctx, "", def...)
				done <- result{errs, code}
			}()
			f.log.waitFor(t, "ask ")
			tc.stop(f, cancel)
			r := <-done
			if r.code != 1 || !regexp.MustCompile(tc.stderrRE).MatchString(r.errs) {
				t.Fatalf("exit %d stderr %q", r.code, r.errs)
			}
			// Before the run's end for cancellation: the call itself ended it.
			f.checkEnded(t)
			if n := f.log.count(t, "exit"); n != 0 {
				t.Fatalf("a server in the middle of a call was shut down politely instead of killed")
			}
		})
	}
}

// workerDirEnv names the workspace of TestSessionsWorkerProcess.
const workerDirEnv = "HSYMBOL_TEST_WORKER_DIR"

// TestSessionsWorkerProcess is the worker of TestSessionsEndWithAKilledWorker
// when started by it as a child process; otherwise it does nothing.
func TestSessionsWorkerProcess(t *testing.T) {
	dir := os.Getenv(workerDirEnv)
	if dir == "" {
		t.Skip("only the worker of TestSessionsEndWithAKilledWorker")
	}
	if os.Getenv(workerCloseEnv) != "" {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	pool := newSessions(settings{tempRoots: []string{os.Getenv("TMPDIR")}})
	var out, errb bytes.Buffer
	env := &privcmd.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: dir, Environ: os.Environ(),
		Limits: serverLimits()}
	code := pool.Run(t.Context(), env, []string{"hsymbol", "def", "main.go", "17:f2d0", "NewCounter"})
	fmt.Printf("ready %d %q\n", code, errb.String())
	if os.Getenv(workerCloseEnv) == "" {
		select {} // until killed, the server idle in its session
	}
	pool.Close()
	fmt.Printf("children %v\n", childrenOf(t, os.Getpid()))
}

// workerCloseEnv makes TestSessionsWorkerProcess a subreaper, like the
// worker, that closes its sessions and lists the children it has left.
const workerCloseEnv = "HSYMBOL_TEST_WORKER_CLOSE"

// childrenOf lists pid's children, zombies included, from every thread's
// children file.
func childrenOf(t *testing.T, pid int) []string {
	files, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	if err != nil || len(files) == 0 {
		t.Fatalf("no children files for %d: %v", pid, err)
	}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.Fields(string(b))...)
	}
	return out
}

// TestSessionsCloseLeavesNoChild: in a subreaper (the worker is one) the
// server's killed group becomes the worker's children once the leader is
// gone; Close waits for them and reaps them, so the end of the run finds
// no process of the server, not even a zombie, to report as the script's.
func TestSessionsCloseLeavesNoChild(t *testing.T) {
	f := newFakeRun(t)
	t.Cleanup(func() {
		for _, pid := range append(f.log.pids(t, "start"), f.log.pids(t, "child")...) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^TestSessionsWorkerProcess$")
	// sleep, the child the fake server leaves in its group, is on the PATH.
	cmd.Env = append(f.m.home.Environ([]string{"PATH=" + f.path + ":/usr/bin:/bin"}), append(f.vars, workerDirEnv+"="+f.dir, workerCloseEnv+"=1")...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("worker: %v\n%s", err, out)
	}
	if want := "ready 0 \"\"\nchildren []\n"; !strings.HasPrefix(string(out), want) {
		t.Fatalf("worker said %q, want %q (the server's group left children behind)", out, want)
	}
	if len(f.log.pids(t, "child")) == 0 {
		t.Fatal("the fake server started no child: the test proves nothing")
	}
}

// TestSessionsEndWithAKilledWorker: a worker killed outright (nothing of it
// runs after SIGKILL) still takes its idle server along, even one that
// would outlive the end of its input.
func TestSessionsEndWithAKilledWorker(t *testing.T) {
	f := newFakeRun(t, fakeStayEnv+"=1")
	t.Cleanup(func() { // a failed run must not leave the fake behind
		for _, pid := range append(f.log.pids(t, "start"), f.log.pids(t, "child")...) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^TestSessionsWorkerProcess$")
	cmd.Env = append(f.m.home.Environ([]string{"PATH=" + f.path}), append(f.vars, workerDirEnv+"="+f.dir)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready 0 \"\"\n" {
		cmd.Process.Kill()
		t.Fatalf("the worker said %q (%v)", line, err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	starts := f.log.pids(t, "start")
	if len(starts) != 1 {
		t.Fatalf("servers started: %v", starts)
	}
	gone(t, starts[0])
	groupGone(t, starts[0])
}

// A server that cannot be started says why in a way callers can test: the
// cause (here a missing executable) survives errors.Is.
func TestStartSessionKeepsTheCause(t *testing.T) {
	srv, _ := serverFor("go")
	root := t.TempDir()
	q := query{srv: srv, bin: filepath.Join(root, "no-such-gopls"), root: root}
	env := &privcmd.Env{Dir: root}
	_, err := startSession(context.Background(), env, q, []string{t.TempDir()})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "cannot start gopls") {
		t.Fatalf("err = %v, want cannot start gopls wrapping fs.ErrNotExist", err)
	}
}
