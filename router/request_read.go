package router

import (
	"errors"
	"io"
	"sync/atomic"
)

// heldBytes bounds the request body bytes the router holds in memory at
// once, across all requests: the bodies it reads whole to rewrite them.
// Streamed bodies (forwarded unchanged) are not held.
type heldBytes struct {
	limit int64
	used  atomic.Int64
}

func (h *heldBytes) take(n int64) bool {
	for {
		u := h.used.Load()
		if u+n > h.limit {
			return false
		}
		if h.used.CompareAndSwap(u, u+n) {
			return true
		}
	}
}

// lease is what one request holds of the budget; release returns it all.
type lease struct {
	h *heldBytes
	n int64
}

func (l *lease) grow(n int64) error {
	if !l.h.take(n) {
		return errMemoryBudget
	}
	l.n += n
	return nil
}

func (l *lease) release() {
	l.h.used.Add(-l.n)
	l.n = 0
}

// errMemoryBudget: taking more would exceed the held-bytes bound.
var errMemoryBudget = errors.New("request memory budget exhausted")

// errBodyTooLarge is reported by readBounded.
var errBodyTooLarge = errors.New("request body too large")

// readChunk is how much an unknown-length body grows by at first.
const readChunk = 64 << 10

// readBounded reads a whole body of at most limit bytes, holding what it
// allocates against l before allocating it (the body is the only copy: the
// parse reads it in place, and the replay restore and the request rewrite
// send their edits as pieces between its bytes). size
// is the Content-Length (-1 when unknown): a known size is held and
// allocated at once, so an over-budget request is refused before a byte is
// read.
func readBounded(r io.Reader, size, limit int64, l *lease) ([]byte, error) {
	if size > limit {
		return nil, errBodyTooLarge
	}
	if size >= 0 {
		if err := l.grow(size); err != nil {
			return nil, err
		}
		buf := make([]byte, size)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	var buf []byte
	for {
		if len(buf) == cap(buf) {
			next := min(max(2*int64(cap(buf)), readChunk), limit+1)
			if next <= int64(cap(buf)) {
				return nil, errBodyTooLarge
			}
			if err := l.grow(next - int64(cap(buf))); err != nil {
				return nil, err
			}
			grown := make([]byte, len(buf), next)
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, errBodyTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
