//go:build linux

package worker

import (
	"context"
	"io"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/interp"

	"hpatch-router/worker/hsymbol"
)

// Exit statuses of the worker besides the script's own.
const (
	// ExitUsage: the worker was started without interpreter and body, or the
	// middle fields are not valid shell options.
	ExitUsage = 2
	// ExitSyntax: the Bash/sh body does not parse (as bash does).
	ExitSyntax = 2
	// ExitCannotRun: refused — unauthenticated runtime, interpreter found
	// but not executable.
	ExitCannotRun = 126
	// ExitNotFound: interpreter (or runtime) not found.
	ExitNotFound = 127
	// ExitOverflow: stdout+stderr exceeded the output budget; the run was
	// stopped and the rest of the output discarded.
	ExitOverflow = 125
	// A signal ends the run with 128+signal (130 SIGINT, 143 SIGTERM, 129
	// SIGHUP, 131 SIGQUIT, 141 when stdout or stderr is a broken pipe).
)

// run is one worker execution: the streams, the tracked processes, and the
// single completion path every terminal event goes through.
type run struct {
	ctx    context.Context
	cancel context.CancelFunc

	stdin          *os.File
	stdout, stderr *stream
	errDst         *os.File // the real stderr, for the worker's own last line
	out            *output
	procs          *procs
	scripts        *os.Root
	symbols        *hsymbol.Sessions                                   // hsymbol's language servers, ended by complete
	private        func(interp.ExecHandlerFunc) interp.ExecHandlerFunc // PrivateCommands(scripts, symbols)

	once     sync.Once
	tstpOnce sync.Once
	reason   string // "exit", "signal", "overflow", "broken-pipe"
	code     int
	sig      syscall.Signal
}

// runOption adjusts a run before it starts (tests use them).
type runOption func(*run)

// withOutputLimit sets the shared output budget.
func withOutputLimit(n int64) runOption { return func(r *run) { r.out.limit = n } }

func newRun(stdin, stdout, stderr *os.File, opts ...runOption) *run {
	r := &run{stdin: stdin, errDst: stderr}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	r.procs = newProcs(isTerminal(stdin), linuxProcs{})
	if r.procs.tty {
		r.procs.fgGroup = foregroundGroup(stdin)
	}
	r.out = &output{limit: DefaultOutputLimit}
	r.out.onOver = func() { r.finish("overflow", ExitOverflow, 0) }
	r.out.onBroken = func() { r.finish("broken-pipe", 128+int(syscall.SIGPIPE), syscall.SIGPIPE) }
	for _, o := range opts {
		o(r)
	}
	r.symbols = hsymbol.NewSessions()
	r.private = PrivateCommands(r.scripts, r.symbols)
	r.stdout, r.stderr = r.out.newStream(stdout), r.out.newStream(stderr)
	return r
}

// finish records the run's terminal outcome; the first call wins. Every
// outcome but a normal exit stops the run: no new command starts, tracked
// process groups are terminated, the evaluation is cancelled.
func (r *run) finish(reason string, code int, sig syscall.Signal) {
	first := false
	r.once.Do(func() {
		r.reason, r.code, r.sig, first = reason, code, sig, true
	})
	if !first || reason == "exit" {
		return
	}
	r.cancel()
	stopSig := sig
	if stopSig == 0 || stopSig == syscall.SIGPIPE {
		stopSig = syscall.SIGTERM
	}
	go r.procs.stop(stopSig)
}

// notifySignals starts catching SIGINT/SIGTERM/SIGHUP/SIGQUIT (and
// SIGPIPE, so a broken output reports EPIPE instead of killing the worker
// before it cleans up; SIGTSTP, so ^Z never stops the worker: see
// resumeStopped). Main calls it first, so a signal that arrives while
// the worker authenticates is kept and stops the run as soon as it starts.
// It is the largest piece of the worker's own start: the runtime enables
// each signal with a round trip to its signal-mask thread (a locked OS
// thread it starts for the first), measured at 0.11 ms for the six on an
// idle 2-vCPU VM and 0.25-0.3 ms under load, so every signal added here
// costs every shell call.
func notifySignals() chan os.Signal {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE, syscall.SIGTSTP)
	return ch
}

// watchSignals turns the caught signals into a cancellation of the run,
// forwarded to the running commands' groups. stop returns once the watch
// has ended, so no signal acts on the run after it, and leaves the
// signals caught: the worker exits right after the run, and
// signal.Stop would cost a round trip to the runtime's signal-mask thread
// per signal (6 of them, ~65 µs a run on a 2-vCPU VM) only to hand the
// last microseconds back to the default actions, where SIGINT, SIGTERM
// or SIGHUP would end a worker whose outcome is decided by that signal
// instead of the run's status, and SIGQUIT with a goroutine dump. A
// signal then is dropped and the run's status stands.
func (r *run) watchSignals(ch chan os.Signal) (stop func()) {
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		for {
			select {
			case s := <-ch:
				sig := s.(syscall.Signal)
				if sig == syscall.SIGPIPE {
					continue // writes report EPIPE; output handles it
				}
				if sig == syscall.SIGTSTP {
					r.resumeStopped()
					continue
				}
				r.finish("signal", 128+int(sig), sig)
			case <-done:
				return
			}
		}
	}()
	return func() { close(done); <-ended }
}

// resumeStopped answers ^Z (SIGTSTP). A worker script has no job control:
// like `bash -c`, there is no interactive shell to return to and nothing
// could later `fg` the job, so a stopped foreground command would hang the
// call until Codex kills it. With a terminal, ^Z stopped the whole
// foreground group (the worker's commands share it); the worker continues
// that group at once and again over the next few hundred milliseconds (a
// program that handles SIGTSTP, like less or vim, stops itself a little
// later), and says so once. ^C and cancellation still stop the run.
// Without a terminal a SIGTSTP can only have been sent to the worker
// itself, and nothing else is stopped.
func (r *run) resumeStopped() {
	if !r.procs.tty {
		return
	}
	r.tstpOnce.Do(func() {
		r.note("^Z (SIGTSTP): a worker script has no job control, so the command was resumed; use ^C to stop it")
	})
	go func() {
		for _, d := range []time.Duration{0, 50, 100, 200, 400} {
			time.Sleep(d * time.Millisecond)
			syscall.Kill(0, syscall.SIGCONT) // the worker's own (foreground) group
		}
	}()
}

// abandonWait bounds how long a stopped run waits for its evaluation: a
// builtin blocked reading a stdin that cannot be interrupted (a blocking
// pipe) must not keep the worker alive after cancellation.
const abandonWait = TermGrace + time.Second

// await returns the evaluation's status, or — once the run was stopped by
// a signal, overflow or broken pipe — at most abandonWait later.
func (r *run) await(done <-chan int) int {
	select {
	case status := <-done:
		return status
	case <-r.ctx.Done():
	}
	select {
	case status := <-done:
		return status
	case <-time.After(abandonWait):
		return r.code // decided by the outcome that stopped the run
	}
}

// complete ends the run after the evaluation returned with status: records
// it (unless something else ended the run first), ends hsymbol's language
// servers, terminates whatever the script left running, drains the output within a bound, writes the one
// line that explains a non-exit outcome, and returns the exit status.
func (r *run) complete(status int) int {
	r.finish("exit", status, 0)
	// Language servers are the run's own, not the script's: they end
	// first, so neither the leftover nor the detached report counts them.
	r.symbols.Close()
	leftover := r.procs.stop(syscall.SIGTERM)
	detached := r.procs.stopOrphans()
	r.stdout.closeWriter()
	r.stderr.closeWriter()
	deadline := time.Now().Add(drainWait)
	okOut := r.stdout.wait(deadline)
	okErr := r.stderr.wait(deadline)
	r.cancel()
	switch r.reason {
	case "overflow":
		r.note("output exceeded " + strconv.Itoa(int(r.out.limit)) + " bytes (stdout and stderr together); the rest was discarded and the script was stopped (exit " + strconv.Itoa(ExitOverflow) + "); write large output to a file and read it in parts")
	case "signal":
		r.note("stopped by " + signalName(r.sig) + "; running commands and their process groups were terminated")
	case "exit":
		if leftover {
			r.note("processes the script left running in the background were terminated when it ended; run long-lived programs outside the shell tool")
		}
	}
	if detached > 0 {
		r.note(strconv.Itoa(detached) + " detached process(es) (setsid, daemon, or orphaned background jobs) were still running when the script ended and were terminated")
	}
	if !okOut || !okErr {
		r.note("a process outside the script's process groups still held the output open after " + drainWait.String() + "; it was detached")
	}
	return r.code
}

// note writes one worker line to the real stderr, outside the budget.
func (r *run) note(line string) {
	if r.errDst != nil {
		io.WriteString(r.errDst, "shell: "+line+"\n")
	}
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return "signal " + strconv.Itoa(int(s))
}
