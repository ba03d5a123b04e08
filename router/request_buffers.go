package router

import (
	"errors"
	"io"
	"math/bits"
	"net"
	"slices"
	"sync"
	"sync/atomic"
)

// bodyPool recycles the buffers request bodies are read into whole, by
// power-of-two size class from minPooledBody to maxPooledBody (a larger
// body gets a buffer of its own). A buffer goes back only once nothing can
// read it any more: the handler is done with it and the transport has
// closed every reader of it (bodyBuffer). A request holds its buffer's
// whole size against MaxRequestMemory; what waits in the pool is not held
// (sync.Pool lets the collector free it).
type bodyPool struct {
	classes [maxPooledShift - minPooledShift + 1]sync.Pool
	// scribble (set by tests only) pools every non-empty body and
	// overwrites each buffer as it returns, so state that kept a view of
	// one request's bytes past its handler (the request memo, the replay
	// resume point, RequestInfo) reads garbage in the next request instead
	// of quietly reading the old bytes.
	scribble bool
}

const (
	minPooledShift = 14 // 16 KiB
	maxPooledShift = 22 // 4 MiB
	minPooledBody  = 1 << minPooledShift
	maxPooledBody  = 1 << maxPooledShift
)

// class is the pool index for a buffer of at least n bytes, or -1 when n
// is beyond the largest class.
func poolClass(n int) int {
	if n > maxPooledBody {
		return -1
	}
	shift := max(bits.Len(uint(n-1)), minPooledShift)
	return shift - minPooledShift
}

// newBody starts a body read for one request; the caller holds the first
// reference and drops it with release when it is done with the bytes.
func (p *bodyPool) newBody() *bodyBuffer {
	bb := &bodyBuffer{pool: p}
	bb.refs.Store(1)
	return bb
}

// bodyBuffer is one request's body buffer. refs counts who may still
// read it: the handler (until release) and every reader handed to the
// transport (until its Close). At zero the buffer returns to its pool, so
// a transport still writing the body while the response already streams
// back (HTTP/2 is full duplex), or a retry through GetBody, never reads a
// buffer another request has reused.
type bodyBuffer struct {
	pool *bodyPool
	buf  *[]byte // the pooled buffer; nil when none was taken
	refs atomic.Int32
}

// alloc gives readBounded n bytes to read the body into, which l already
// holds. A pooled buffer is larger than n (up to twice), so l must hold
// the rest too: when the budget has no room for it, the body gets a buffer
// of its own of exactly n bytes instead. It is called at most once.
func (bb *bodyBuffer) alloc(n int, l *lease) []byte {
	c := poolClass(n)
	small := n < minPooledBody/2 && !(bb.pool.scribble && n > 0)
	if c < 0 || small || l.grow(bodyCopies*int64(1<<(c+minPooledShift)-n)) != nil {
		return make([]byte, n)
	}
	bp, _ := bb.pool.classes[c].Get().(*[]byte)
	if bp == nil {
		b := make([]byte, 1<<(c+minPooledShift))
		bp = &b
	}
	bb.buf = bp
	return (*bp)[:n]
}

// acquire takes another reference; it fails once the count reached zero.
func (bb *bodyBuffer) acquire() bool {
	for {
		n := bb.refs.Load()
		if n <= 0 {
			return false
		}
		if bb.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// release drops a reference; the last one returns the buffer.
func (bb *bodyBuffer) release() {
	if bb.refs.Add(-1) != 0 {
		return
	}
	if bp := bb.buf; bp != nil {
		bb.buf = nil
		if bb.pool.scribble {
			for i := range (*bp)[:cap(*bp)] {
				(*bp)[i] = 'X'
			}
		}
		bb.pool.classes[poolClass(cap(*bp))].Put(bp)
	}
}

// errBodyReleased: a reader of a request body was read after its Close,
// or GetBody was called once the body was given back.
var errBodyReleased = errors.New("request body read after it was closed")

// piecesReader reads body's pieces in order. Reading consumes a
// net.Buffers (it advances the slice), so each reader gets its own copy
// of the slice header list; the bytes are shared and only read. With from
// set, the pieces alias that pooled buffer: the reader holds a reference
// to it until its Close, and reads after Close fail without touching it
// (the HTTP/2 transport may close a body from another goroutine while its
// writer still reads). It fails when from was already given back.
func piecesReader(body net.Buffers, from *bodyBuffer) (io.ReadCloser, error) {
	b := slices.Clone(body)
	if from == nil {
		return io.NopCloser(&b), nil
	}
	if !from.acquire() {
		return nil, errBodyReleased
	}
	return &pooledReader{pieces: b, from: from}, nil
}

// pooledReader is piecesReader's reader over a pooled buffer.
type pooledReader struct {
	mu     sync.Mutex
	pieces net.Buffers
	from   *bodyBuffer // nil once closed
}

func (r *pooledReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.from == nil {
		return 0, errBodyReleased
	}
	return r.pieces.Read(p)
}

func (r *pooledReader) Close() error {
	r.mu.Lock()
	from := r.from
	r.from, r.pieces = nil, nil
	r.mu.Unlock()
	if from != nil {
		from.release()
	}
	return nil
}
