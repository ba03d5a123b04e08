package router

import (
	"context"
	"errors"
	"io"
	"sync/atomic"
	"time"
)

// Causes attached to the upstream request context when the router gives up.
var (
	errResponseStart = errors.New("upstream did not start a response in time")
	errStreamIdle    = errors.New("upstream stream went idle")
)

// idleBody ends an upstream body that stays silent longer than d: the
// timer is re-armed after every read and, when it fires, cancels the
// upstream request with errStreamIdle, which Read then reports.
type idleBody struct {
	rc    io.ReadCloser
	d     time.Duration
	timer *time.Timer
	fired atomic.Bool
}

func newIdleBody(rc io.ReadCloser, d time.Duration, cancel context.CancelCauseFunc) *idleBody {
	b := &idleBody{rc: rc, d: d}
	b.timer = time.AfterFunc(d, func() {
		b.fired.Store(true)
		cancel(errStreamIdle)
	})
	return b
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if b.fired.Load() {
		return n, errStreamIdle
	}
	b.timer.Reset(b.d)
	return n, err
}

func (b *idleBody) Close() error {
	b.timer.Stop()
	return b.rc.Close()
}
