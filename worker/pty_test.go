//go:build linux

package worker_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"hpatch-router/internal/testenv"
)

// ptyRun is the helper running on a PTY, its output collected.
type ptyRun struct {
	t   *testing.T
	cmd *exec.Cmd
	f   *os.File

	mu  sync.Mutex
	out strings.Builder
}

func startPTY(t *testing.T, e *env, args ...string) *ptyRun {
	t.Helper()
	cmd := e.command(context.Background(), args...)
	f, err := pty.Start(cmd)
	must(t, err)
	p := &ptyRun{t: t, cmd: cmd, f: f}
	t.Cleanup(func() { cmd.Process.Kill(); f.Close() })
	go func() {
		r := bufio.NewReader(f)
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return p
}

func (p *ptyRun) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// expect waits up to d for want in the output.
func (p *ptyRun) expect(want string, d time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if strings.Contains(p.output(), want) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.cmd.Process.Kill()
	p.t.Fatalf("timed out waiting for %q; output %q", want, p.output())
}

// Guards cancellation in a terminal reaching grandchildren: commands stay
// in the worker's foreground group there, so only the direct child used to
// be signalled. Here the direct child ignores SIGTERM and waits for its
// background sleep; the sleep must get the worker's SIGTERM at once (the
// child then reports its status 143) — before, the sleep lived on until
// the child was SIGKILLed after the grace and the end of the run found it.
func TestPTYCancellationReachesGrandchild(t *testing.T) {
	track(t, "sleep 3041")
	e := newEnv(t)
	p := startPTY(t, e, "bash", `bash -c 'sleep 3041 & trap "" TERM; echo started; wait $!; echo "grandchild-status $?"'`)
	p.expect("started", 20*time.Second)
	waitRunning(t, "sleep 3041")
	must(t, p.cmd.Process.Signal(syscall.SIGTERM))
	p.expect("grandchild-status 143", 10*time.Second)
	if code := waitExit(t, p.cmd, 10*time.Second); code != 143 {
		t.Fatalf("exit %d; output %q", code, p.output())
	}
	waitGone(t, "sleep 3041", 3*time.Second)
}

// Guards ^Z in a terminal: the foreground command and the worker share
// the terminal's foreground group, so ^Z used to stop them all and the
// call hung until Codex killed it (nothing can `fg` a worker script). Now
// the worker stays running, resumes the command, says so in one line, and
// the script finishes with its own status.
func TestPTYSuspendDoesNotHang(t *testing.T) {
	e := newEnv(t)
	p := startPTY(t, e, "bash", "echo ready; sleep 1; echo after-sleep; exit 4")
	p.expect("ready", 20*time.Second)
	time.Sleep(200 * time.Millisecond) // sleep is the foreground command now
	_, err := p.f.Write([]byte{0x1a})  // ^Z
	must(t, err)
	p.expect("no job control", 10*time.Second)
	p.expect("after-sleep", 10*time.Second)
	if code := waitExit(t, p.cmd, 10*time.Second); code != 4 {
		t.Fatalf("exit %d; output %q", code, p.output())
	}
	if n := strings.Count(p.output(), "shell: "); n != 1 {
		t.Fatalf("%d worker lines; output %q", n, p.output())
	}
}

// Guards ^C in a terminal: the kernel sends SIGINT to the whole
// foreground group (the worker and its commands), and the worker, which
// stops the run, must not send it again: the command that handles SIGINT
// (perl counts every delivery) counts one, not two. It still ends (SIGKILL after the grace) and the
// run's status is 130.
func TestPTYInterruptReachesCommandOnce(t *testing.T) {
	e := newEnv(t)
	testenv.NeedTool(t, "perl") // its signal handlers count every delivery
	p := startPTY(t, e, "bash", `perl -e '$| = 1; $SIG{INT} = sub { $n++; print "int-$n\n" }; print "ready\n"; select(undef, undef, undef, 0.05) while 1'`)
	p.expect("ready", 20*time.Second)
	time.Sleep(100 * time.Millisecond)
	_, err := p.f.Write([]byte{0x03}) // ^C
	must(t, err)
	if code := waitExit(t, p.cmd, 10*time.Second); code != 130 {
		t.Fatalf("exit %d; output %q", code, p.output())
	}
	time.Sleep(100 * time.Millisecond) // the PTY reader catches up
	if out := p.output(); !strings.Contains(out, "int-1") || strings.Contains(out, "int-2") {
		t.Fatalf("want exactly one SIGINT at the command; output %q", out)
	}
}
