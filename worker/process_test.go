//go:build linux

package worker_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"hpatch-router/worker"

	"hpatch-router/internal/testenv"
)

// startStreaming starts the helper with stdout as a pipe the test reads
// line by line; stderr is collected.
func (e *env) startStreaming(t *testing.T, args ...string) (*exec.Cmd, *bufio.Reader, *bytes.Buffer) {
	t.Helper()
	cmd := e.command(context.Background(), args...)
	out, err := cmd.StdoutPipe()
	must(t, err)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	must(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, bufio.NewReader(out), &errb
}

func readLine(t *testing.T, r *bufio.Reader, want string) {
	t.Helper()
	done := make(chan string, 1)
	go func() { l, _ := r.ReadString('\n'); done <- l }()
	select {
	case l := <-done:
		if l != want {
			t.Fatalf("read %q, want %q", l, want)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("timed out waiting for %q", want)
	}
}

// waitExit waits for cmd with a bound and returns its exit status.
func waitExit(t *testing.T, cmd *exec.Cmd, d time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return exitCode(err)
	case <-time.After(d):
		cmd.Process.Kill()
		t.Fatalf("worker did not exit within %v", d)
		return -1
	}
}

// A9: cancellation kills the descendants of a non-terminal external
// command, including a background grandchild that holds stdout open.
func TestCancellationKillsBackgroundGrandchild(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			e := newEnv(t)
			marker := track(t, "sleep 3017")
			script := "bash -c '" + marker + " & echo started; wait'; echo not-reached"
			cmd, out, errb := e.startStreaming(t, "bash", script)
			readLine(t, out, "started\n")
			waitRunning(t, marker)
			must(t, cmd.Process.Signal(sig))
			rest, _ := io.ReadAll(out) // EOF only when nothing holds stdout
			code := waitExit(t, cmd, 10*time.Second)
			if code != 128+int(sig) || len(rest) != 0 {
				t.Fatalf("exit %d (want %d), rest %q, stderr %q", code, 128+int(sig), rest, errb)
			}
			if !strings.Contains(errb.String(), "shell: stopped by") {
				t.Fatalf("stderr %q", errb)
			}
			waitGone(t, marker, 3*time.Second)
		})
	}
}

func waitRunning(t *testing.T, marker string) {
	t.Helper()
	for i := 0; i < 200 && len(alive(marker)) == 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if len(alive(marker)) == 0 {
		t.Fatalf("%q is not running", marker)
	}
}

// A background grandchild that ignores SIGTERM is still gone (SIGKILL
// after worker.TermGrace).
func TestCancellationKillsTermIgnoringGrandchild(t *testing.T) {
	track(t, "sleep 3018")
	e := newEnv(t)
	script := "bash -c 'trap \"\" TERM; sleep 3018 & echo started; wait'"
	cmd, out, _ := e.startStreaming(t, "bash", script)
	readLine(t, out, "started\n")
	waitRunning(t, "sleep 3018")
	must(t, cmd.Process.Signal(syscall.SIGTERM))
	io.ReadAll(out)
	waitExit(t, cmd, 10*time.Second)
	waitGone(t, "sleep 3018", worker.TermGrace+3*time.Second)
}

// Output overflow: one shared budget, one line, a distinct status, and the
// grandchild holding stdout is killed; a producer never blocks.
func TestOutputOverflowKillsGrandchild(t *testing.T) {
	track(t, "sleep 3019")
	e := newEnv(t)
	script := "bash -c 'sleep 3019 & exec yes overflow'"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := e.command(ctx, "bash", script)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if code := exitCode(err); code != worker.ExitOverflow {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if out.Len() > worker.DefaultOutputLimit || out.Len() < worker.DefaultOutputLimit-len("overflow\n") {
		t.Fatalf("stdout %d bytes, budget %d", out.Len(), worker.DefaultOutputLimit)
	}
	if !strings.HasPrefix(errb.String(), "shell: output exceeded 4194304 bytes") || strings.Count(errb.String(), "\n") != 1 {
		t.Fatalf("stderr %q", errb.String())
	}
	waitGone(t, "sleep 3019", 3*time.Second)
}

// stdout and stderr share the budget.
func TestOutputBudgetIsShared(t *testing.T) {
	e := newEnv(t)
	r := e.run("", "bash", "head -c 3000000 /dev/zero | tr '\\0' a; head -c 3000000 /dev/zero | tr '\\0' b >&2; echo never")
	if r.code != worker.ExitOverflow || len(r.stdout)+len(r.stderr) > worker.DefaultOutputLimit+300 || strings.Contains(r.stdout, "never") {
		t.Fatalf("exit %d, %d+%d bytes", r.code, len(r.stdout), len(r.stderr))
	}
}

// A9: with a PTY on stdin, a piped stage that reads /dev/tty gets the
// typed input: external commands stay in the foreground process group, so
// there is no SIGTTIN stop.
func TestPTYPipedStageReadsTTY(t *testing.T) {
	e := newEnv(t)
	cmd := e.command(context.Background(), "bash", "echo ready; head -n1 /dev/tty | tr a-z A-Z; echo done")
	f, err := pty.Start(cmd)
	must(t, err)
	defer f.Close()
	var buf bytes.Buffer
	lines := make(chan string, 16)
	go func() {
		r := bufio.NewReader(f)
		for {
			l, err := r.ReadString('\n')
			if l != "" {
				lines <- l
			}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	expect := func(want string) {
		t.Helper()
		timeout := time.After(15 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				buf.WriteString(l)
				if !ok {
					t.Fatalf("EOF before %q; got %q", want, buf.String())
				}
				if strings.Contains(l, want) {
					return
				}
			case <-timeout:
				cmd.Process.Kill()
				t.Fatalf("timed out waiting for %q (SIGTTIN stop?); got %q", want, buf.String())
			}
		}
	}
	expect("ready")
	_, err = f.Write([]byte("typed input\n"))
	must(t, err)
	expect("TYPED INPUT")
	expect("done")
	if code := waitExit(t, cmd, 10*time.Second); code != 0 {
		t.Fatalf("exit %d; output %q", code, buf.String())
	}
}

// What the script leaves running is terminated at its end and reported in
// one line; the script's own status is kept.
func TestLeftoverBackgroundIsTerminatedAndReported(t *testing.T) {
	track(t, "sleep 3021")
	track(t, "sleep 3022")
	e := newEnv(t)
	r := e.run("", "bash", "sleep 3021 &\nbash -c 'sleep 3022 >/dev/null 2>&1 &'\necho done; exit 3")
	if r.stdout != "done\n" || r.code != 3 || !strings.Contains(r.stderr, "left running in the background were terminated") {
		t.Fatalf("got %+v", r)
	}
	waitGone(t, "sleep 3021", 3*time.Second)
	waitGone(t, "sleep 3022", 3*time.Second)
}

// A command that detaches from its process group (setsid) is still found
// at the end (the worker is a child subreaper), terminated and reported.
func TestDetachedProcessIsTerminatedAndReported(t *testing.T) {
	track(t, "sleep 3023")
	testenv.NeedTool(t, "setsid")
	e := newEnv(t)
	r := e.run("", "bash", "bash -c 'setsid sleep 3023 >/dev/null 2>&1 < /dev/null &'; sleep 0.2; echo done")
	if r.stdout != "done\n" || r.code != 0 || !strings.Contains(r.stderr, "detached process(es)") {
		t.Fatalf("got %+v", r)
	}
	waitGone(t, "sleep 3023", 3*time.Second)
}

// A broken stdout ends the run through the same completion path: the
// producer and its group are stopped and the status is 128+SIGPIPE.
func TestBrokenStdoutStopsTheRun(t *testing.T) {
	track(t, "sleep 3024")
	e := newEnv(t)
	cmd := e.command(context.Background(), "bash", "bash -c 'sleep 3024 & exec yes'")
	rc, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	readLine(t, bufio.NewReader(rc), "y\n")
	waitRunning(t, "sleep 3024")
	rc.Close() // the only read end: stdout is now broken
	if code := waitExit(t, cmd, 10*time.Second); code != 141 {
		t.Fatalf("exit %d, want 141", code)
	}
	waitGone(t, "sleep 3024", 3*time.Second)
}

// A builtin blocked reading stdin is cancelled too.
func TestCancellationStopsBlockedRead(t *testing.T) {
	e := newEnv(t)
	cmd := e.command(context.Background(), "bash", "echo waiting; read -r line; echo got")
	pr, pw, err := os.Pipe()
	must(t, err)
	defer pw.Close()
	cmd.Stdin = pr
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	pr.Close()
	t.Cleanup(func() { cmd.Process.Kill() })
	readLine(t, bufio.NewReader(out), "waiting\n")
	must(t, cmd.Process.Signal(syscall.SIGTERM))
	if code := waitExit(t, cmd, 10*time.Second); code != 143 {
		t.Fatalf("exit %d, want 143", code)
	}
}
