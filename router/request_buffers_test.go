package router

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

func TestPoolClass(t *testing.T) {
	for _, c := range []struct{ n, want int }{
		{1, 0}, {minPooledBody, 0}, {minPooledBody + 1, 1}, {40 << 10, 2},
		{maxPooledBody, maxPooledShift - minPooledShift}, {maxPooledBody + 1, -1},
	} {
		if got := poolClass(c.n); got != c.want {
			t.Errorf("poolClass(%d) = %d, want %d", c.n, got, c.want)
		}
		if c.want >= 0 && 1<<(c.want+minPooledShift) < c.n {
			t.Errorf("class %d is too small for %d bytes", c.want, c.n)
		}
	}
}

// A pooled body buffer goes back only when the handler and every reader
// handed out (the body and each GetBody) are done, in whatever order they
// finish; a reader closed before the others cannot read any more, and no
// reader can be made once the buffer went back.
func TestBodyBufferReturnsAfterItsLastUser(t *testing.T) {
	for _, order := range [][]string{
		{"handler", "body", "retry"},
		{"body", "retry", "handler"},
		{"retry", "handler", "body"},
	} {
		t.Run(strings.Join(order, ","), func(t *testing.T) {
			var pool bodyPool
			from := pool.newBody()
			b := from.alloc(20<<10, &lease{h: &heldBytes{limit: 1 << 20}})
			copy(b, bytes.Repeat([]byte("x"), len(b)))
			pieces := splice(b, []edit{{start: 10, end: 10, repl: []byte("inserted")}})
			body, err := piecesReader(pieces, from)
			if err != nil {
				t.Fatal(err)
			}
			retry, err := piecesReader(pieces, from)
			if err != nil {
				t.Fatal(err)
			}
			users := map[string]func(){"handler": from.release, "body": func() { body.Close() }, "retry": func() { retry.Close() }}
			for i, u := range order {
				if from.buf == nil {
					t.Fatalf("buffer went back before %s was done", u)
				}
				users[u]()
				if i < len(order)-1 && from.refs.Load() != int32(len(order)-1-i) {
					t.Fatalf("after %s: %d references, want %d", u, from.refs.Load(), len(order)-1-i)
				}
			}
			if from.buf != nil || from.refs.Load() != 0 {
				t.Fatalf("buffer not given back after its last user (%d references)", from.refs.Load())
			}
			if _, err := body.Read(make([]byte, 8)); !errors.Is(err, errBodyReleased) {
				t.Fatalf("read after close: %v, want errBodyReleased", err)
			}
			if _, err := piecesReader(pieces, from); !errors.Is(err, errBodyReleased) {
				t.Fatalf("reader made after the buffer went back: %v", err)
			}
		})
	}
}

// A request holds the whole of its pooled buffer against the memory
// budget; when the budget has room for the body but not for the pooled
// buffer's rounding, the body gets an exact buffer and is still read.
func TestPooledBodyIsHeldWhole(t *testing.T) {
	data := bytes.Repeat([]byte("x"), 40<<10) // a 64 KiB class
	for _, c := range []struct {
		name     string
		budget   int64
		wantHeld int64
	}{
		{"room for the class", 1 << 20, 64 << 10},
		{"room for the body only", int64(len(data)), int64(len(data))},
	} {
		t.Run(c.name, func(t *testing.T) {
			var pool bodyPool
			h := &heldBytes{limit: c.budget}
			l := &lease{h: h}
			from := pool.newBody()
			got, err := readBounded(bytes.NewReader(data), int64(len(data)), 1<<20, l, from.alloc)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, data) {
				t.Fatal("body changed")
			}
			if h.used.Load() != c.wantHeld || int64(cap(got)) != c.wantHeld {
				t.Fatalf("held %d for a buffer of %d bytes, want %d", h.used.Load(), cap(got), c.wantHeld)
			}
			from.release()
			l.release()
		})
	}
}

// lateBodyTransport answers at once but reads most of each request body
// only after the next request was read whole into its own buffer (as the
// HTTP/2 transport may still write a body while the response streams
// back), and reads a GetBody copy whole before answering (as a retry
// does). Each request's body must read back as the bytes sent.
type lateBodyTransport struct {
	t    *testing.T
	sent func(i int) []byte
	mu   sync.Mutex
	next map[int]chan struct{} // closed when request i reached the transport
	wg   sync.WaitGroup
}

func (l *lateBodyTransport) reached(i int) chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	c, ok := l.next[i]
	if !ok {
		c = make(chan struct{})
		l.next[i] = c
	}
	return c
}

func (l *lateBodyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var i int
	fmt.Sscan(req.Header.Get("X-Request"), &i)
	want := l.sent(i)
	if req.GetBody == nil {
		l.t.Error("no GetBody")
	} else if rc, err := req.GetBody(); err != nil {
		l.t.Error(err)
	} else {
		got, _ := io.ReadAll(rc)
		rc.Close()
		if !bytes.Equal(got, want) {
			l.t.Errorf("request %d: GetBody read other bytes than were sent", i)
		}
	}
	head := make([]byte, 100)
	if _, err := io.ReadFull(req.Body, head); err != nil {
		l.t.Error(err)
	}
	close(l.reached(i))
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		defer req.Body.Close()
		<-l.reached(i + 1)
		rest, _ := io.ReadAll(req.Body)
		if got := append(head, rest...); !bytes.Equal(got, want) {
			l.t.Errorf("request %d: the body read after the response differs from what was sent (its buffer was reused)", i)
		}
	}()
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader("{}")), Request: req}, nil
}

func TestPooledBodyIsNotReusedWhileTheTransportReadsIt(t *testing.T) {
	const n = 40
	sent := func(i int) []byte {
		// Same size class for every request, different bytes.
		return fmt.Appendf(nil, `{"model":"m","input":[{"type":"message","role":"user","content":"%s"}]}`,
			strings.Repeat(string(rune('a'+i%26)), 20<<10))
	}
	lt := &lateBodyTransport{t: t, sent: sent, next: map[int]chan struct{}{}}
	rt := newTestRouter(t, Transport(lt))
	for i := range n {
		req := httptest.NewRequest("POST", "/v1/responses", bytes.NewReader(sent(i)))
		req.Header.Set("X-Request", fmt.Sprint(i))
		rec := httptest.NewRecorder()
		rt.ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Fatalf("request %d: status %d: %s", i, rec.Code, rec.Body)
		}
	}
	close(lt.reached(n))
	lt.wg.Wait()
}
