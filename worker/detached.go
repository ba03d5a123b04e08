package worker

import (
	"os"
	"strconv"
	"strings"
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

// orphans are the live processes reparented to the worker: descendants of
// the script that outlived their parents. They are read from the
// children lists of the worker's threads (cheap; no /proc scan), skipping
// zombies.
func orphans() []int {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	var pids []int
	for _, task := range tasks {
		data, err := os.ReadFile("/proc/self/task/" + task.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(data)) {
			pid, err := strconv.Atoi(f)
			if err != nil {
				continue
			}
			if st, err := statFields(pid); err == nil && len(st) > 0 && st[0] != "Z" {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// stopOrphans terminates the processes reparented to the worker (and their
// process groups when they lead one): SIGTERM, then SIGKILL after
// TermGrace. They are our children, so their ids cannot be reused before
// we reap them. It returns how many there were.
func stopOrphans() int {
	pids := orphans()
	if len(pids) == 0 {
		return 0
	}
	kill := func(sig syscall.Signal) {
		for _, pid := range pids {
			if pgid, err := syscall.Getpgid(pid); err == nil && pgid == pid {
				syscall.Kill(-pid, sig)
			}
			syscall.Kill(pid, sig)
		}
	}
	kill(syscall.SIGTERM)
	deadline := time.Now().Add(TermGrace)
	for time.Now().Before(deadline) && len(orphans()) > 0 {
		time.Sleep(20 * time.Millisecond)
	}
	if len(orphans()) > 0 {
		kill(syscall.SIGKILL)
	}
	// Reap them so nothing lingers as a zombie of ours.
	for _, pid := range pids {
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	}
	return len(pids)
}
