//go:build linux

package worker

import (
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// DefaultOutputLimit is the shared byte budget of a worker run's stdout and
// stderr together (4 MiB). Output beyond it is read and discarded so no
// child ever blocks on a full pipe; the run is stopped and ends with
// ExitOverflow. Streams that are terminals pass through unbounded: Codex
// bounds PTY sessions itself, and a pipe would change what programs see.
const DefaultOutputLimit = 4 << 20

// drainWait bounds how long the end of a run waits for the output pipes to
// reach EOF after every process it can see is gone (a descendant that left
// its process group may still hold them).
const drainWait = 2 * time.Second

// output is the shared budget and the sink of both streams. Writes from
// the two streams are serialized, so their interleaving is kept.
type output struct {
	mu       sync.Mutex
	limit    int64
	used     int64
	over     bool
	broken   bool
	onOver   func() // called once, without the lock, when the budget is spent
	onBroken func() // called once when the destination is gone (EPIPE)
}

// stream is one standard stream of the run. When the destination is a
// terminal (or nil) everything writes to it directly. Otherwise the
// shell's own writes (builtins, private commands) go straight to the
// destination, counted against the budget, until a child process needs a
// descriptor for it (file): from then on the stream is a pipe that a
// goroutine drains into the destination, and every write goes through
// it, so the order of the output stays as it was written. A run that
// starts no process never makes the pipe, its goroutine or the thread
// wake-ups of the copy.
type stream struct {
	out      *output
	dst      *os.File
	terminal bool

	mu   sync.Mutex
	w    *os.File // the pipe's write end, once made
	r    *os.File
	done chan struct{}
}

// isTerminal reports whether f is a terminal. It goes through SyscallConn:
// f.Fd() would put the descriptor in blocking mode, and the evaluation
// needs stdin's read deadlines to cancel a blocked `read`.
func isTerminal(f *os.File) bool {
	if f == nil {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	tty := false
	rc.Control(func(fd uintptr) {
		_, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
		tty = err == nil
	})
	return tty
}

// foregroundGroup returns the worker's process group when it is the
// foreground group of the terminal f, else 0.
func foregroundGroup(f *os.File) int {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	fg := 0
	rc.Control(func(fd uintptr) {
		if pgrp, err := unix.IoctlGetInt(int(fd), unix.TIOCGPGRP); err == nil && pgrp == syscall.Getpgrp() {
			fg = pgrp
		}
	})
	return fg
}

// newStream returns the stream for dst, passing a terminal through.
func (o *output) newStream(dst *os.File) *stream {
	return &stream{out: o, dst: dst, terminal: dst == nil || isTerminal(dst)}
}

// writer is what the shell evaluation writes to: the destination itself
// when it is a terminal (so `[ -t 1 ]` sees one), else the stream.
func (s *stream) writer() io.Writer {
	if s.terminal {
		return s.dst
	}
	return s
}

// Write is a write by the shell itself: straight to the destination
// (within the budget) until the pipe exists, then into the pipe.
func (s *stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w != nil {
		return s.w.Write(p)
	}
	s.out.write(s.dst, p)
	return len(p), nil // beyond the budget or a gone reader, the run is being stopped
}

// file returns the descriptor a child process writes this stream to:
// the destination when it is a terminal, else the pipe, made on the
// first call.
func (s *stream) file() (*os.File, error) {
	if s.terminal {
		return s.dst, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		s.r, s.w, s.done = r, w, make(chan struct{})
		go s.out.drain(s)
	}
	return s.w, nil
}

func (o *output) drain(s *stream) {
	defer close(s.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := s.r.Read(buf)
		if n > 0 {
			o.write(s.dst, buf[:n])
		}
		if err != nil {
			return
		}
	}
}

func (o *output) write(dst *os.File, p []byte) {
	o.mu.Lock()
	if o.over || o.broken {
		o.mu.Unlock()
		return
	}
	var overflow bool
	if remain := o.limit - o.used; int64(len(p)) > remain {
		p = completeUTF8(p[:remain])
		overflow = true
		o.over = true
		o.used = o.limit
	} else {
		o.used += int64(len(p))
	}
	var broken bool
	if len(p) > 0 {
		if _, err := dst.Write(p); err != nil && errors.Is(err, syscall.EPIPE) {
			o.broken, broken = true, true
		}
	}
	o.mu.Unlock()
	if overflow && o.onOver != nil {
		o.onOver()
	}
	if broken && o.onBroken != nil {
		o.onBroken()
	}
}

// completeUTF8 drops an incomplete UTF-8 sequence at the end of p.
func completeUTF8(p []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(p); i++ {
		c := p[len(p)-i]
		if c < utf8.RuneSelf {
			return p // ASCII: nothing open
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(p[len(p)-i:]) {
				return p[:len(p)-i]
			}
			return p
		}
	}
	return p
}

// exceeded reports whether the budget was spent.
func (o *output) exceeded() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.over
}

// closeWriter closes the run's own copy of the pipe's write end;
// children keep theirs until they exit. Later writes by the shell (none
// are expected) fail.
func (s *stream) closeWriter() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w != nil {
		s.w.Close()
	}
}

// wait waits for the drain to reach EOF, at most until deadline; after
// that the read end is closed so a lingering writer gets EPIPE. Without
// a pipe there is nothing to wait for.
func (s *stream) wait(deadline time.Time) bool {
	s.mu.Lock()
	done, r := s.done, s.r
	s.mu.Unlock()
	if done == nil {
		return true
	}
	select {
	case <-done:
		return true
	case <-time.After(time.Until(deadline)):
		r.Close()
		return false
	}
}
