//go:build linux

package worker

import (
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// becomeSubreaper makes descendants that lose their parent (a daemon that
// double-forks, `setsid cmd &` inside a command) the worker's children
// instead of init's, so the end of the run can find what left the tracked
// process groups.
func becomeSubreaper() {
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// orphans pins the live processes reparented to the worker: descendants
// of the script that outlived their parents. They are read from the
// children lists of the worker's threads (cheap; no /proc scan), skipping
// zombies and the tracked children not yet reaped (procs.stop handles
// those; a reaped one's pid now names another process, which counts).
func (p *procs) orphans() []member {
	p.mu.Lock()
	tracked := map[int]bool{}
	for _, c := range p.list {
		if !c.exited {
			tracked[c.pid] = true
		}
	}
	p.mu.Unlock()
	self := p.os.self()
	var out []member
	for _, pid := range p.os.children(self) {
		if tracked[pid] {
			continue
		}
		h, err := p.os.open(pid)
		if err != nil {
			continue
		}
		st, err := h.stat()
		if err != nil || h.signal(0) != nil || st.ppid != self || st.state == 'Z' {
			h.close()
			continue
		}
		out = append(out, member{h, st})
	}
	return out
}

// stopOrphans terminates the processes reparented to the worker (and their
// process groups when they lead one): SIGTERM, then SIGKILL after
// TermGrace. They are our children and only this function reaps them, so
// their ids (and group ids) stay theirs until then. It returns how many
// there were.
func (p *procs) stopOrphans() int {
	first := p.orphans()
	if len(first) == 0 {
		return 0
	}
	kill := func(ms []member, sig syscall.Signal) {
		for _, m := range ms {
			if m.st.pgid == m.st.pid {
				p.os.kill(-m.st.pid, sig)
			}
			m.h.signal(sig)
		}
	}
	closeAll := func(ms []member) {
		for _, m := range ms {
			m.h.close()
		}
	}
	kill(first, syscall.SIGTERM)
	kill(first, syscall.SIGCONT)
	deadline := time.Now().Add(TermGrace)
	for {
		left := p.orphans()
		if len(left) == 0 {
			break
		}
		if !time.Now().Before(deadline) {
			kill(left, syscall.SIGKILL)
			closeAll(left)
			break
		}
		closeAll(left)
		time.Sleep(20 * time.Millisecond)
	}
	// Reap them so nothing lingers as a zombie of ours.
	for _, m := range first {
		var ws syscall.WaitStatus
		syscall.Wait4(m.st.pid, &ws, syscall.WNOHANG, nil)
		m.h.close()
	}
	return len(first)
}
