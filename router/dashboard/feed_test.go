package dashboard

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"hpatch-router/router"
)

// sseEvent is one parsed server-sent event.
type sseEvent struct{ name, id, data string }

// sseReader reads events (and comments, as name ":") from a stream.
type sseReader struct{ sc *bufio.Scanner }

func (r *sseReader) next(t *testing.T) sseEvent {
	t.Helper()
	var ev sseEvent
	for r.sc.Scan() {
		line := r.sc.Text()
		switch {
		case line == "":
			if ev != (sseEvent{}) {
				return ev
			}
		case strings.HasPrefix(line, ":"):
			return sseEvent{name: ":"}
		case strings.HasPrefix(line, "event: "):
			ev.name = line[len("event: "):]
		case strings.HasPrefix(line, "id: "):
			ev.id = line[len("id: "):]
		case strings.HasPrefix(line, "data: "):
			ev.data = line[len("data: "):]
		case strings.HasPrefix(line, "retry: "):
		}
	}
	t.Fatalf("stream ended: %v", r.sc.Err())
	return ev
}

func openEvents(t *testing.T, ctx context.Context, url string) (*http.Response, *sseReader) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 {
		return resp, nil
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	return resp, &sseReader{sc}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestEventsSummaryThenLiveCallsAndRejections(t *testing.T) {
	d := New()
	d.ShellCall(sampleCall(time.Now(), "before"))
	srv := httptest.NewServer(d.Handler())
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, r := openEvents(t, ctx, srv.URL)

	first := r.next(t)
	var s Summary
	if first.name != "summary" || json.Unmarshal([]byte(first.data), &s) != nil || s.Seq != 1 || len(s.RecentCalls) != 1 {
		t.Fatalf("first event = %+v", first)
	}
	waitFor(t, "subscriber", func() bool { return d.subscriberCount() == 1 })

	d.ShellCall(sampleCall(time.Now(), "live-1"))
	d.Rejection(router.RejectionEvent{Thread: "thread-1", Code: "unsupported_tool_layout", Reason: "hpatch-router: top-level exec"})

	ev := r.next(t)
	var cm callMessage
	if ev.name != "call" || ev.id != "2" || json.Unmarshal([]byte(ev.data), &cm) != nil {
		t.Fatalf("call event = %+v", ev)
	}
	if cm.Call.CallID != "live-1" || cm.Call.Body != "" || cm.Totals.Calls != 2 || cm.Hour == nil || cm.Hour.Calls < 1 {
		t.Fatalf("call message = %+v", cm)
	}
	ev = r.next(t)
	var rm rejectionMessage
	if ev.name != "rejection" || json.Unmarshal([]byte(ev.data), &rm) != nil || rm.Rejection.Code != "unsupported_tool_layout" || rm.Totals.Rejections != 1 {
		t.Fatalf("rejection event = %+v", ev)
	}
	cancel()
	waitFor(t, "unsubscribe", func() bool { return d.subscriberCount() == 0 })
}

func TestEventsKeepAlive(t *testing.T) {
	d := New(KeepAlive(20 * time.Millisecond))
	srv := httptest.NewServer(d.Handler())
	t.Cleanup(srv.Close)
	_, r := openEvents(t, t.Context(), srv.URL)
	if ev := r.next(t); ev.name != "summary" {
		t.Fatalf("first = %+v", ev)
	}
	if ev := r.next(t); ev.name != ":" {
		t.Fatalf("want a ping comment, got %+v", ev)
	}
}

func TestSlowSubscriberIsDroppedNotWaitedFor(t *testing.T) {
	d := New(Queue(2))
	srv := httptest.NewServer(d.Handler())
	t.Cleanup(srv.Close)
	_, r := openEvents(t, t.Context(), srv.URL)
	r.next(t) // summary
	waitFor(t, "subscriber", func() bool { return d.subscriberCount() == 1 })
	// Without reading, publish far more than the queue and the socket
	// buffers hold; ShellCall must never block.
	done := make(chan struct{})
	go func() {
		for i := range 5000 {
			e := sampleCall(time.Now(), "flood")
			e.Warnings = []string{strings.Repeat("w", 400), string(rune('a' + i%26))}
			d.ShellCall(e)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("ShellCall blocked on a slow subscriber")
	}
	waitFor(t, "drop", func() bool { return d.subscriberCount() == 0 })
}

func TestSubscriberCap(t *testing.T) {
	d := New(Subscribers(1))
	srv := httptest.NewServer(d.Handler())
	t.Cleanup(srv.Close)
	_, r := openEvents(t, t.Context(), srv.URL)
	r.next(t)
	resp, r2 := openEvents(t, t.Context(), srv.URL)
	if r2 != nil || resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("second viewer: %d", resp.StatusCode)
	}
}

func TestCloseEndsStreams(t *testing.T) {
	d := New()
	srv := httptest.NewServer(d.Handler())
	t.Cleanup(srv.Close)
	resp, r := openEvents(t, t.Context(), srv.URL)
	r.next(t)
	waitFor(t, "subscriber", func() bool { return d.subscriberCount() == 1 })
	d.Close()
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Fatalf("stream did not end cleanly: %v", err)
	}
	if resp2, r2 := openEvents(t, t.Context(), srv.URL); r2 != nil || resp2.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("after Close: %d", resp2.StatusCode)
	}
	d.ShellCall(sampleCall(time.Now(), "after-close"))
	if d.Summary().Totals.Calls != 1 {
		t.Fatal("recording stopped after Close")
	}
}
