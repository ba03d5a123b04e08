//go:build linux

package worker

import (
	"errors"
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

// stream is one standard stream of the run: W is what the script and its
// children write to; when the destination is not a terminal W is the write
// end of a pipe that a goroutine drains into the destination.
type stream struct {
	W    *os.File
	r    *os.File
	dst  *os.File
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
func (o *output) newStream(dst *os.File) (*stream, error) {
	s := &stream{dst: dst, done: make(chan struct{})}
	if dst == nil || isTerminal(dst) {
		s.W = dst
		close(s.done)
		return s, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	s.r, s.W = r, w
	go o.drain(s)
	return s, nil
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

// closeWriter closes the run's own copy of the write end; children keep
// theirs until they exit.
func (s *stream) closeWriter() {
	if s.r != nil && s.W != nil {
		s.W.Close()
	}
}

// wait waits for the drain to reach EOF, at most until deadline; after
// that the read end is closed so a lingering writer gets EPIPE.
func (s *stream) wait(deadline time.Time) bool {
	select {
	case <-s.done:
		return true
	case <-time.After(time.Until(deadline)):
		if s.r != nil {
			s.r.Close()
		}
		return false
	}
}
