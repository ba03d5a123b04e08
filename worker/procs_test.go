//go:build linux

package worker

import (
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fakeOS replays process-table states that real processes cannot be made
// to produce on demand (a pid reused at an exact moment). Each pid maps to
// the process holding it now; a handle pins the process it was opened on,
// and reads /proc by pid, as the real pidfd handle does.
type fakeOS struct {
	mu     sync.Mutex
	me     int
	procs  map[int]*fakeProc
	opened func(pid int) // runs right after a handle is opened
}

type fakeProc struct {
	st   procStat
	dead bool
	got  []syscall.Signal
}

func newFakeOS(me int) *fakeOS { return &fakeOS{me: me, procs: map[int]*fakeProc{}} }

func (f *fakeOS) add(pid, ppid, pgid int, start uint64) *fakeProc {
	p := &fakeProc{st: procStat{pid: pid, ppid: ppid, pgid: pgid, state: 'S', start: start}}
	f.procs[pid] = p
	return p
}

func (f *fakeOS) self() int    { return f.me }
func (f *fakeOS) waitExit(int) {}
func (f *fakeOS) deliver(p *fakeProc, sig syscall.Signal) {
	if sig != 0 {
		p.got = append(p.got, sig)
	}
}

func (f *fakeOS) kill(pid int, sig syscall.Signal) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if pid > 0 {
		p := f.procs[pid]
		if p == nil || p.dead {
			return syscall.ESRCH
		}
		f.deliver(p, sig)
		return nil
	}
	found := false
	for _, p := range f.procs {
		if !p.dead && p.st.pgid == -pid {
			f.deliver(p, sig)
			found = true
		}
	}
	if !found {
		return syscall.ESRCH
	}
	return nil
}

func (f *fakeOS) children(pid int) []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []int
	for _, p := range f.procs {
		if !p.dead && p.st.ppid == pid {
			out = append(out, p.st.pid)
		}
	}
	slices.Sort(out)
	return out
}

func (f *fakeOS) open(pid int) (procHandle, error) {
	f.mu.Lock()
	p := f.procs[pid]
	f.mu.Unlock()
	if p == nil || p.dead {
		return nil, syscall.ESRCH
	}
	if f.opened != nil {
		f.opened(pid)
	}
	return &fakeHandle{f: f, p: p, pid: pid}, nil
}

type fakeHandle struct {
	f   *fakeOS
	p   *fakeProc
	pid int
}

func (h *fakeHandle) stat() (procStat, error) {
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	if cur := h.f.procs[h.pid]; cur != nil && !cur.dead {
		return cur.st, nil // by pid, like /proc: maybe not the pinned process
	}
	return procStat{}, syscall.ESRCH
}

func (h *fakeHandle) signal(sig syscall.Signal) error {
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	if h.p.dead {
		return syscall.ESRCH
	}
	h.f.deliver(h.p, sig)
	return nil
}

func (h *fakeHandle) close() {}

// reuse ends the process holding pid and gives the pid to a new,
// unrelated process (child of init) in group pgid.
func (f *fakeOS) reuse(pid, pgid int, start uint64) *fakeProc {
	f.mu.Lock()
	defer f.mu.Unlock()
	if old := f.procs[pid]; old != nil {
		old.dead = true
	}
	p := &fakeProc{st: procStat{pid: pid, ppid: 1, pgid: pgid, state: 'S', start: start}}
	f.procs[pid] = p
	return p
}

const worker0 = 10 // the fake worker's pid

// Guards identity before signals: a tracked leader (pid 100) was reaped
// and its pid reused by an unrelated process that made its own group 100.
// The group is live and its members started after our leader, so the old
// rule (live group, members no older than the leader) signalled it; now
// members must be pinned descendants of the worker, and none is.
func TestSignalNeverReachesReusedGroup(t *testing.T) {
	f := newFakeOS(worker0)
	stranger := f.add(100, 1, 100, 90)
	member := f.add(101, 100, 100, 95)
	p := newProcs(false, f)
	p.list = []*proc{{pid: 100, start: 50, group: true, exited: true}}
	if p.signal(syscall.SIGTERM) {
		t.Error("reported a reused group as ours")
	}
	if len(stranger.got)+len(member.got) != 0 {
		t.Fatalf("signalled an unrelated group: %v %v", stranger.got, member.got)
	}
}

// Guards that a reaped leader's group is still stopped: a member the
// worker adopted (reparented grandchild, group 100) is signalled through
// its pin; a process in the same group that is not the worker's
// descendant, and one that started before the leader, are not.
func TestSignalReachesReapedLeadersGroup(t *testing.T) {
	f := newFakeOS(worker0)
	ours := f.add(200, worker0, 100, 60)
	deeper := f.add(201, 200, 100, 61)
	outsider := f.add(300, 1, 100, 70)
	older := f.add(202, worker0, 100, 40)
	p := newProcs(false, f)
	p.list = []*proc{{pid: 100, start: 50, group: true, exited: true}}
	if !p.signal(syscall.SIGTERM) {
		t.Fatal("did not see the live member")
	}
	if !slices.Equal(ours.got, []syscall.Signal{syscall.SIGTERM}) || !slices.Equal(deeper.got, []syscall.Signal{syscall.SIGTERM}) {
		t.Fatalf("members got %v %v", ours.got, deeper.got)
	}
	if len(outsider.got)+len(older.got) != 0 {
		t.Fatalf("signalled %v %v", outsider.got, older.got)
	}
}

// Guards the window between finding a member and signalling it: the
// member exits and its pid goes to an unrelated process in the same group
// right after the pin is taken. The pin still names the dead process, and
// /proc (read by pid) now describes the stranger; neither is signalled.
func TestSignalSkipsMemberReplacedAfterScan(t *testing.T) {
	f := newFakeOS(worker0)
	member := f.add(200, worker0, 100, 60)
	var stranger *fakeProc
	f.opened = func(pid int) {
		if pid == 200 && stranger == nil {
			stranger = f.reuse(200, 100, 80)
		}
	}
	p := newProcs(false, f)
	p.list = []*proc{{pid: 100, start: 50, group: true, exited: true}}
	p.signal(syscall.SIGTERM)
	if len(member.got) != 0 || stranger == nil || len(stranger.got) != 0 {
		t.Fatalf("member %v, stranger %+v", member.got, stranger)
	}
}

// A leader not yet reaped still holds its pid, so its group is signalled
// directly (one kill reaches members forking at that moment).
func TestSignalUnreapedLeaderGroup(t *testing.T) {
	f := newFakeOS(worker0)
	leader := f.add(100, worker0, 100, 50)
	member := f.add(101, 100, 100, 51)
	p := newProcs(false, f)
	p.list = []*proc{{pid: 100, start: 50, group: true}}
	if !p.signal(syscall.SIGINT) || len(leader.got) != 1 || len(member.got) != 1 {
		t.Fatalf("leader %v member %v", leader.got, member.got)
	}
}

// Guards cancellation in a terminal: commands share the worker's
// foreground group, so the grandchild is reached through the process tree
// (the old rule signalled only the direct child). The direct child is
// signalled once, and a process in the same group that is not below the
// worker (the carrier shell that started it) is left alone.
func TestSignalTTYReachesGrandchildren(t *testing.T) {
	f := newFakeOS(worker0)
	child := f.add(100, worker0, 5, 50)
	grandchild := f.add(101, 100, 5, 51)
	adopted := f.add(102, worker0, 5, 52)
	parent := f.add(4, 1, 5, 10)
	p := newProcs(true, f)
	p.list = []*proc{{pid: 100, start: 50}}
	p.signal(syscall.SIGTERM)
	for _, c := range []*fakeProc{child, grandchild, adopted} {
		if !slices.Equal(c.got, []syscall.Signal{syscall.SIGTERM}) {
			t.Errorf("pid %d got %v, want one SIGTERM", c.st.pid, c.got)
		}
	}
	if len(parent.got) != 0 {
		t.Errorf("signalled the worker's parent: %v", parent.got)
	}
}

// Guards the reaping order with real processes: while signal holds the
// lock, wait cannot reap a child that has exited (it stays a zombie, its
// pid taken), so a child signal sees as not exited cannot have a reused
// pid. Without the order (cmd.Wait first, then the mark) the child would
// be gone from /proc while the lock is held.
func TestWaitReapsOnlyAfterMarking(t *testing.T) {
	p := newProcs(false, linuxProcs{})
	cmd := exec.Command("true")
	c, err := p.start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	done := make(chan error, 1)
	go func() { done <- p.wait(c, cmd) }()
	time.Sleep(200 * time.Millisecond)
	st, err := readStat(c.pid)
	exited := c.exited
	p.mu.Unlock()
	if err != nil || st.state != 'Z' || exited {
		t.Fatalf("while locked: stat %+v err %v exited %v; want an unreaped zombie", st, err, exited)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := readStat(c.pid); err == nil {
		t.Fatal("not reaped after wait")
	}
}

// Guards what the end of a run counts as detached: the worker's children
// that it does not track. A tracked child not yet reaped is left to
// procs.stop; one that was reaped no longer holds its pid, so a process
// now holding that pid is an orphan like any other (the old rule skipped
// every tracked pid and would have left it running). Zombies and
// processes that are not the worker's children do not count.
func TestOrphans(t *testing.T) {
	f := newFakeOS(worker0)
	f.add(100, worker0, 100, 50) // tracked, running
	reused := f.add(101, worker0, 101, 90)
	zombie := f.add(102, worker0, 102, 60)
	zombie.st.state = 'Z'
	f.add(103, 1, 103, 70) // not ours
	detached := f.add(104, worker0, 104, 80)
	p := newProcs(false, f)
	p.list = []*proc{{pid: 100, start: 50, group: true}, {pid: 101, start: 40, group: true, exited: true}}
	var got []int
	for _, m := range p.orphans() {
		got = append(got, m.st.pid)
		m.h.close()
	}
	slices.Sort(got)
	if want := []int{reused.st.pid, detached.st.pid}; !slices.Equal(got, want) {
		t.Fatalf("orphans %v, want %v", got, want)
	}
}

// Guards a terminal's ^C reaching each foreground process once: the
// kernel already sent SIGINT to the whole foreground group, the worker's,
// so the worker does not repeat it there (a program handling SIGINT saw
// two before); a descendant in another group, which the terminal did not
// reach, still gets it, and SIGTERM still goes to everyone.
func TestSignalTerminalInterruptOnce(t *testing.T) {
	f := newFakeOS(worker0)
	child := f.add(100, worker0, 5, 50)
	grandchild := f.add(101, 100, 5, 51)
	ownGroup := f.add(102, 100, 102, 52)
	p := newProcs(true, f)
	p.fgGroup = 5
	p.list = []*proc{{pid: 100, start: 50}}
	if !p.signal(syscall.SIGINT) {
		t.Fatal("live processes not reported")
	}
	if len(child.got)+len(grandchild.got) != 0 || !slices.Equal(ownGroup.got, []syscall.Signal{syscall.SIGINT}) {
		t.Fatalf("SIGINT: child %v grandchild %v own group %v", child.got, grandchild.got, ownGroup.got)
	}
	p.signal(syscall.SIGTERM)
	for _, c := range []*fakeProc{child, grandchild, ownGroup} {
		if !slices.Contains(c.got, syscall.SIGTERM) {
			t.Errorf("pid %d got %v, want SIGTERM", c.st.pid, c.got)
		}
	}
}

// Guards the shortcut of the /proc scan: hasChildren says whether the
// process has any child, running or a zombie, and a scan that the
// shortcut skips could have found nothing (the children lists of all
// threads, read the long way, agree with it at every step).
func TestHasChildren(t *testing.T) {
	scan := func() []int { return linuxProcs{}.childrenFromProc(os.Getpid()) }
	check := func(step string, want bool) {
		t.Helper()
		if got := hasChildren(); got != want || got != (len(scan()) > 0) {
			t.Fatalf("%s: hasChildren %v, want %v (the /proc scan found %v)", step, got, want, scan())
		}
	}
	if len(scan()) > 0 {
		t.Skipf("the test process already has children %v", scan())
	}
	check("no child", false)
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	check("running child", true)
	cmd.Process.Kill()
	p := newProcs(false, linuxProcs{})
	p.os.waitExit(cmd.Process.Pid)
	check("exited, not reaped", true)
	cmd.Wait()
	check("reaped", false)
}
