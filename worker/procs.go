//go:build linux

package worker

import (
	"errors"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// TermGrace is how long a process group has to exit after SIGTERM (or the
// forwarded cancellation signal) before it gets SIGKILL.
const TermGrace = 1 * time.Second

// errStopping refuses to start a command once the run is being stopped, so
// nothing new escapes a cancellation or an overflow.
var errStopping = errors.New("the run is being stopped")

// procs tracks every process the run started. Without a terminal each one
// leads its own process group, so a signal to the group reaches its
// descendants; with a terminal they stay in the worker's (foreground)
// group, and a signal reaches the descendants through the process tree
// below the worker (a child subreaper, so nothing leaves that tree).
//
// Identity before signals: a tracked child is reaped only after its
// exited flag is set under mu (wait), so while signal holds mu a child not
// marked exited still holds its pid, and its group id cannot have been
// reused. Anything else (members of a group whose leader was reaped,
// descendants in a terminal) is signalled only through a handle that pins
// the process (a pidfd), after checking, while pinned, that it is still a
// live descendant of the worker in the expected group.
type procs struct {
	tty bool
	// fgGroup is the worker's process group when it is the terminal's
	// foreground group (0 otherwise). A terminal's ^C or ^\ has already
	// reached every process in it, so SIGINT and SIGQUIT are not sent to
	// them a second time (a program handling SIGINT would see two);
	// whatever is still running after TermGrace gets SIGKILL as usual.
	fgGroup int
	os      procOS

	mu       sync.Mutex
	stopping bool
	list     []*proc
}

type proc struct {
	pid    int
	start  uint64 // start time in clock ticks: members of its group start no earlier
	group  bool   // leads its own process group (pgid == pid)
	exited bool   // exited and about to be (or already) reaped: the pid may be reused
}

func newProcs(tty bool, sys procOS) *procs { return &procs{tty: tty, os: sys} }

// start starts cmd as a tracked child.
func (p *procs) start(cmd *exec.Cmd) (*proc, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = !p.tty
	// If the worker dies without cleaning up (SIGKILL), the direct child
	// goes too. Pdeathsig follows the starting thread, so pin it.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopping {
		return nil, errStopping
	}
	runtime.LockOSThread()
	err := cmd.Start()
	runtime.UnlockOSThread()
	if err != nil {
		return nil, err
	}
	c := &proc{pid: cmd.Process.Pid, group: !p.tty}
	if h, err := p.os.open(c.pid); err == nil { // not reaped yet: it is our child
		if st, err := h.stat(); err == nil {
			c.start = st.start
		}
		h.close()
	}
	p.list = append(p.list, c)
	return c, nil
}

// wait waits for a tracked child and reaps it. The exit is observed
// without reaping, then marked under mu, and only then reaped: signal
// never sees an unmarked child whose pid is already free.
func (p *procs) wait(c *proc, cmd *exec.Cmd) error {
	p.os.waitExit(c.pid)
	p.mu.Lock()
	c.exited = true
	p.mu.Unlock()
	return cmd.Wait()
}

// member is a live descendant of the worker, pinned.
type member struct {
	h  procHandle
	st procStat
}

// descendants walks the process tree below the worker and pins every live
// process in it. A process counts only if, while pinned, it is not a
// zombie and its parent is the process whose children list named it.
func (p *procs) descendants() []member {
	var out []member
	seen := map[int]bool{}
	queue := []int{p.os.self()}
	for len(queue) > 0 {
		parent := queue[0]
		queue = queue[1:]
		for _, pid := range p.os.children(parent) {
			if seen[pid] {
				continue
			}
			seen[pid] = true
			h, err := p.os.open(pid)
			if err != nil {
				continue
			}
			st, err := h.stat()
			// stat describes the pinned process only if it is still alive
			// after the read (the pid was not free in between).
			if err != nil || h.signal(0) != nil || st.ppid != parent || st.state == 'Z' {
				h.close()
				continue
			}
			out = append(out, member{h, st})
			queue = append(queue, pid)
		}
	}
	return out
}

// signal sends sig to every live tracked group (or child, with a
// terminal) and reports whether anything was still alive:
//   - a child not yet reaped: its group (or itself) directly;
//   - a reaped leader's group, when it is not empty: each member that is
//     a live descendant of the worker started no earlier than the leader,
//     one by one through its pin, never kill(-pgid) (the id may be reused);
//   - with a terminal, every other descendant too, so cancellation reaches
//     grandchildren in the shared foreground group.
func (p *procs) signal(sig syscall.Signal) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	var tree []member
	loaded := false
	load := func() {
		if !loaded {
			tree, loaded = p.descendants(), true
		}
	}
	defer func() {
		for _, m := range tree {
			m.h.close()
		}
	}()
	alive := false
	direct := map[int]bool{}
	// terminal reports whether the terminal already delivered sig to the
	// members of group pgid.
	terminal := func(pgid int) bool {
		return p.fgGroup != 0 && pgid == p.fgGroup && (sig == syscall.SIGINT || sig == syscall.SIGQUIT)
	}
	for _, c := range p.list {
		switch {
		case !c.exited && c.group:
			alive = p.os.kill(-c.pid, sig) == nil || alive
		case !c.exited:
			direct[c.pid] = true
			s := sig
			if p.fgGroup != 0 && terminal(p.fgGroup) {
				load()
				for _, m := range tree {
					if m.st.pid == c.pid && terminal(m.st.pgid) {
						s = 0
					}
				}
			}
			alive = p.os.kill(c.pid, s) == nil || alive
		case c.group:
			if p.os.kill(-c.pid, 0) != nil {
				continue // empty group: nothing to identify
			}
			load()
			for _, m := range tree {
				if m.st.pgid == c.pid && m.st.start >= c.start {
					alive = m.h.signal(sig) == nil || alive
				}
			}
		}
	}
	if p.tty {
		load()
		for _, m := range tree {
			if direct[m.st.pid] {
				continue
			}
			s := sig
			if terminal(m.st.pgid) {
				s = 0
			}
			alive = m.h.signal(s) == nil || alive
		}
	}
	return alive
}

// stop refuses new commands and terminates every tracked group: sig first
// (with SIGCONT, so a stopped process acts on it, as bash's kill does),
// SIGKILL to whatever is left after TermGrace. It returns when nothing
// tracked is alive or the grace is over, and reports whether anything was.
func (p *procs) stop(sig syscall.Signal) bool {
	p.mu.Lock()
	p.stopping = true
	p.mu.Unlock()
	if !p.signal(sig) {
		return false
	}
	if sig != syscall.SIGKILL && sig != syscall.SIGCONT {
		p.signal(syscall.SIGCONT)
	}
	deadline := time.Now().Add(TermGrace)
	for time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		if !p.signal(0) {
			return true
		}
	}
	p.signal(syscall.SIGKILL)
	return true
}
