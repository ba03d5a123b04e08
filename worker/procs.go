package worker

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
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
// group and only the direct child is signalled.
type procs struct {
	tty bool

	mu       sync.Mutex
	stopping bool
	list     []*proc
}

type proc struct {
	pid    int
	start  uint64 // start time in clock ticks, to tell its group from a reused id
	group  bool   // leads its own process group (pgid == pid)
	exited bool   // reaped: the pid may be reused, the group may live on
}

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
	c.start, _ = procStart(c.pid)
	p.list = append(p.list, c)
	return c, nil
}

// reaped records that c's leader was waited for.
func (p *procs) reaped(c *proc) {
	p.mu.Lock()
	c.exited = true
	p.mu.Unlock()
}

// signal sends sig to every live tracked group (or child, with a
// terminal). A reaped leader's group is signalled only while /proc shows
// members that started no earlier than the leader: never a reused id.
// It reports whether anything was still alive.
func (p *procs) signal(sig syscall.Signal) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	var members map[int]uint64 // pgid → latest member start time
	alive := false
	for _, c := range p.list {
		switch {
		case !c.exited && c.group:
			alive = syscall.Kill(-c.pid, sig) == nil || alive
		case !c.exited:
			alive = syscall.Kill(c.pid, sig) == nil || alive
		case c.group:
			if syscall.Kill(-c.pid, 0) != nil {
				continue // empty group: nothing to identify
			}
			if members == nil {
				members = groupMembers()
			}
			if latest, ok := members[c.pid]; ok && latest >= c.start {
				alive = syscall.Kill(-c.pid, sig) == nil || alive
			}
		}
	}
	return alive
}

// stop refuses new commands and terminates every tracked group: sig first,
// SIGKILL to whatever is left after TermGrace. It returns when nothing
// tracked is alive or the grace is over, and reports whether anything was.
func (p *procs) stop(sig syscall.Signal) bool {
	p.mu.Lock()
	p.stopping = true
	p.mu.Unlock()
	if !p.signal(sig) {
		return false
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

// groupMembers maps each process group id to the latest start time of its
// members, from /proc.
func groupMembers() map[int]uint64 {
	m := map[int]uint64{}
	d, err := os.Open("/proc")
	if err != nil {
		return m
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		f, err := statFields(pid)
		if err != nil || len(f) < 20 {
			continue
		}
		if f[0] == "Z" {
			continue // a zombie holds no streams
		}
		pgid, _ := strconv.Atoi(f[2])
		start, _ := strconv.ParseUint(f[19], 10, 64)
		if start > m[pgid] || m[pgid] == 0 {
			m[pgid] = start
		}
	}
	return m
}

// statFields are the fields of /proc/<pid>/stat after the command name:
// [0] state, [1] ppid, [2] pgrp, …, [19] starttime.
func statFields(pid int) ([]string, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, err
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, errors.New("malformed /proc stat")
	}
	return strings.Fields(s[i+1:]), nil
}

func procStart(pid int) (uint64, error) {
	f, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	if len(f) < 20 {
		return 0, errors.New("short /proc stat")
	}
	return strconv.ParseUint(f[19], 10, 64)
}
