package router

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"
)

// metricValue reads one unlabelled metric from /metrics.
func metricValue(t *testing.T, h *harness, name string) int64 {
	t.Helper()
	body := readAll(t, h.do(mustReq("GET", h.front.URL+"/metrics")))
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\d+)$`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("metrics lack %s:\n%s", name, body)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

// TestRequestMemoryBound: with room for four bodies, four requests held
// by a slow upstream fill the bound (the gauge shows it), every further
// request gets 503 request_memory_exhausted at once, with or without a
// Content-Length, and once the four finish the gauge is back to 0 and a
// new request passes.
func TestRequestMemoryBound(t *testing.T) {
	const size = 256 << 10
	body := `{"input":"` + strings.Repeat("a", size-12) + `"}`
	var inFlight atomic.Int32
	release := make(chan struct{})
	var releaseOnce sync.Once
	unblock := func() { releaseOnce.Do(func() { close(release) }) }
	arrived := make(chan struct{}, 16)
	h := newHarness(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Path != "/base/responses" {
			return
		}
		if inFlight.Add(1) <= 4 { // hold the first four; answer the rest at once
			arrived <- struct{}{}
			<-release
		}
		io.WriteString(w, "done")
	}, MaxRequestBody(2*size), MaxRequestMemory(4*size))
	t.Cleanup(unblock) // before the harness closes, so a failure does not hang
	if got := metricValue(t, h, "hpatch_router_request_bytes_limit"); got != 4*size {
		t.Fatalf("limit gauge %d", got)
	}

	var wg sync.WaitGroup
	held := make([]*http.Response, 4)
	for i := range held {
		wg.Add(1)
		go func() { defer wg.Done(); held[i] = h.post(body) }()
	}
	for range held {
		<-arrived
	}
	if got := metricValue(t, h, "hpatch_router_request_bytes_held"); got != 4*size {
		t.Fatalf("held gauge %d with four bodies in flight, want %d", got, 4*size)
	}
	extra := make([]*http.Response, 8)
	var more sync.WaitGroup
	for i := range extra {
		more.Add(1)
		go func() { defer more.Done(); extra[i] = h.post(body) }()
	}
	more.Wait()
	for _, resp := range extra {
		if msg := wantRouterError(t, resp, http.StatusServiceUnavailable, "request_memory_exhausted"); !strings.Contains(msg, "retry") ||
			resp.Header.Get("Retry-After") == "" {
			t.Fatalf("503 %q, Retry-After %q", msg, resp.Header.Get("Retry-After"))
		}
	}
	// Unknown length (chunked): refused as it grows past the bound.
	req, _ := http.NewRequest("POST", h.front.URL+"/v1/responses", io.NopCloser(iotest.HalfReader(strings.NewReader(body))))
	req.ContentLength = -1
	wantRouterError(t, h.do(req), http.StatusServiceUnavailable, "request_memory_exhausted")
	if n := inFlight.Load(); n != 4 {
		t.Fatalf("%d requests reached the upstream, want 4", n)
	}
	unblock()
	wg.Wait()
	for _, resp := range held {
		if got := readAll(t, resp); resp.StatusCode != 200 || got != "done" {
			t.Fatalf("held request: %d %q", resp.StatusCode, got)
		}
	}
	// A handler releases its lease as it returns, just after the client
	// has read the last byte.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		got := metricValue(t, h, "hpatch_router_request_bytes_held")
		if got == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("held gauge %d after every request ended", got)
		}
	}
	if resp := h.post(body); readAll(t, resp) != "done" {
		t.Fatalf("after the bound freed up: %d", resp.StatusCode)
	}
}

func TestRequestMemoryMustFitOneBody(t *testing.T) {
	_, err := New(Upstream(mustURL("http://127.0.0.1:1")), MaxRequestBody(2<<20), MaxRequestMemory(2<<20-1))
	if err == nil || !strings.Contains(err.Error(), "raise it") {
		t.Fatalf("New = %v", err)
	}
}

// TestReadBoundedHoldsWhatItAllocates: a known length is held before
// reading; an unknown one as the buffer grows; a refusal leaves the lease
// as it was.
func TestReadBoundedHoldsWhatItAllocates(t *testing.T) {
	data := bytes.Repeat([]byte("x"), 300<<10)
	for _, c := range []struct {
		name           string
		size, limit    int64
		budget         int64
		wantErr        error
		wantHeldAtMost int64
	}{
		{"known length", int64(len(data)), 1 << 20, 1 << 20, nil, int64(len(data))},
		{"known length over budget", int64(len(data)), 1 << 20, 250 << 10, errMemoryBudget, 0},
		{"known length over limit", int64(len(data)), 100 << 10, 1 << 20, errBodyTooLarge, 0},
		{"unknown length", -1, 1 << 20, 2 << 20, nil, 512 << 10},
		{"unknown length over budget", -1, 1 << 20, 200 << 10, errMemoryBudget, 200 << 10},
		{"unknown length over limit", -1, 200 << 10, 1 << 20, errBodyTooLarge, 200<<10 + 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &heldBytes{limit: c.budget}
			l := &lease{h: h}
			got, err := readBounded(iotest.HalfReader(bytes.NewReader(data)), c.size, c.limit, l)
			if err != c.wantErr {
				t.Fatalf("err %v, want %v", err, c.wantErr)
			}
			if err == nil && !bytes.Equal(got, data) {
				t.Fatal("body changed")
			}
			if h.used.Load() > c.wantHeldAtMost || h.used.Load() > c.budget {
				t.Fatalf("held %d, want at most %d", h.used.Load(), c.wantHeldAtMost)
			}
			l.release()
			if h.used.Load() != 0 {
				t.Fatalf("held %d after release", h.used.Load())
			}
		})
	}
}
