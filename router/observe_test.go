package router

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"hpatch-router/router/routertest"

	"hpatch-router/router/request"
)

type recordingObserver struct {
	mu    sync.Mutex
	calls []CallEvent
	rejs  []RejectionEvent
}

func (r *recordingObserver) ShellCall(e CallEvent) {
	r.mu.Lock()
	r.calls = append(r.calls, e)
	r.mu.Unlock()
}

func (r *recordingObserver) Rejection(e RejectionEvent) {
	r.mu.Lock()
	r.rejs = append(r.rejs, e)
	r.mu.Unlock()
}

func TestObserverSetDropsBodiesUnlessEnabled(t *testing.T) {
	rec := &recordingObserver{}
	s := &observerSet{}
	if err := s.add(rec); err != nil {
		t.Fatal(err)
	}
	s.ShellCall(CallEvent{CallID: "c1", Body: "#!/usr/bin/env python3\nprint(1)\n"})
	s.bodies = true
	s.ShellCall(CallEvent{CallID: "c2", Body: "echo hi"})
	s.rejection(RejectionEvent{Code: "translate", Reason: "shell: bad selector"})
	if len(rec.calls) != 2 || rec.calls[0].Body != "" || rec.calls[1].Body != "echo hi" {
		t.Fatalf("calls = %+v", rec.calls)
	}
	if len(rec.rejs) != 1 || rec.rejs[0].Code != "translate" {
		t.Fatalf("rejections = %+v", rec.rejs)
	}
}

func TestObserverSetZeroAndNil(t *testing.T) {
	var nilSet *observerSet
	if nilSet.Active() {
		t.Fatal("nil set is active")
	}
	nilSet.ShellCall(CallEvent{}) // must not panic
	nilSet.rejection(RejectionEvent{})
	if err := nilSet.add(&recordingObserver{}); err == nil {
		t.Fatal("adding to a nil set should fail")
	}
	if (&observerSet{}).Active() {
		t.Fatal("empty set is active")
	}
}

func TestWithObserverRejectsNil(t *testing.T) {
	var c config
	if err := WithObserver(nil)(&c); err == nil {
		t.Fatal("WithObserver(nil) accepted")
	}
}

// The router reports translated shell calls, translation rejections and
// refused requests to its observers (request and stream through the real
// rewrite, upstream scripted).
func TestObserverSeesShellCallsAndRejections(t *testing.T) {
	const input = "#!/usr/bin/env python3\nprint('observed')\n"
	up := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{
		{CustomToolCall: &routertest.CustomToolCall{Name: "shell", Namespace: "functions", CallID: "call_obs_1", Input: input}, Deltas: 3},
		{CustomToolCall: &routertest.CustomToolCall{Name: "shell", Namespace: "functions", CallID: "call_obs_2", Input: "#!/usr/bin/env -S\n"}},
	}})
	u, err := url.Parse(up.URL())
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordingObserver{}
	rt, err := New(Upstream(u), WithObserver(rec), Logger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	front := httptest.NewServer(rt)
	t.Cleanup(front.Close)
	body, err := os.ReadFile("../testdata/codex/captures/cli-lite-exec/000-post.json")
	if err != nil {
		t.Fatal(err)
	}
	const thread = "019b0000-0000-7000-8000-00000000abcd"
	post := func(b []byte) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, front.URL+"/v1/responses", bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Thread-Id", thread)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(out)
	}
	if code, out := post(body); code != 200 || !strings.Contains(out, `"name":"exec"`) {
		t.Fatalf("first response %d: %.300s", code, out)
	}
	rec.mu.Lock()
	calls := append([]CallEvent(nil), rec.calls...)
	rec.mu.Unlock()
	if len(calls) != 1 {
		t.Fatalf("calls = %+v", calls)
	}
	c := calls[0]
	if c.CallID != "call_obs_1" || c.Thread != thread || c.Kind != "worker" || c.Interpreter != "python3" ||
		c.ModelBytes != len(input) || c.CarrierBytes <= c.ModelBytes || c.Duration <= 0 || c.Time.IsZero() || c.Body != "" {
		t.Fatalf("call event = %+v", c)
	}

	if code, _ := post(body); code != 200 {
		t.Fatalf("second response %d", code)
	}
	rec.mu.Lock()
	rejs := append([]RejectionEvent(nil), rec.rejs...)
	rec.mu.Unlock()
	// Counted once, as a rejection; without bodies the diagnostic is
	// reduced to its line.
	if len(rejs) != 1 || rejs[0].Code != "translate" || rejs[0].CallID != "call_obs_2" || rejs[0].Thread != thread ||
		!strings.HasPrefix(rejs[0].Reason, "shell: line 1: rejected") || strings.Contains(rejs[0].Reason, "env selector") || rejs[0].Detail != "" {
		t.Fatalf("rejections = %+v", rejs)
	}
	rec.mu.Lock()
	if len(rec.calls) != 1 {
		t.Errorf("the rejected call was also reported as a call: %+v", rec.calls)
	}
	rec.mu.Unlock()

	bad := []byte(`{"model":"m","tools":[{"type":"custom","name":"exec","description":"x"}],"input":[]}`)
	if code, _ := post(bad); code != http.StatusBadRequest {
		t.Fatalf("top-level exec: %d", code)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.rejs) != 2 || rec.rejs[1].Code != request.CodeUnsupportedToolLayout || !strings.HasPrefix(rec.rejs[1].Reason, "hpatch-router: ") {
		t.Fatalf("rejections = %+v", rec.rejs)
	}
}

func TestObserverBodiesOption(t *testing.T) {
	var c config
	rec := &recordingObserver{}
	if err := WithObserver(rec)(&c); err != nil {
		t.Fatal(err)
	}
	if err := WithObserverBodies(true)(&c); err != nil {
		t.Fatal(err)
	}
	c.observers.ShellCall(CallEvent{Body: "echo hi"})
	if rec.calls[0].Body != "echo hi" {
		t.Fatalf("%+v", rec.calls)
	}
}
