package routertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// maxBody bounds a recorded request body; Codex requests are ≈30–150 KB.
const maxBody = 64 << 20

// Upstream is the fake model API. It is an http.Handler; NewUpstream also
// serves it on a loopback port for the duration of a test.
type Upstream struct {
	sc  Scenario
	srv *httptest.Server

	mu       sync.Mutex
	next     int // index of the next step to play
	requests []Request
	errs     []error
}

// New returns an Upstream playing sc that is not serving yet: use it as an
// http.Handler, or call Start.
func New(sc Scenario) (*Upstream, error) {
	var errs []error
	for i, s := range sc.Steps {
		if err := s.validate(); err != nil {
			errs = append(errs, fmt.Errorf("step %d: %w", i, err))
		}
	}
	if sc.Default != nil {
		if err := sc.Default.validate(); err != nil {
			errs = append(errs, fmt.Errorf("default step: %w", err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Upstream{sc: sc}, nil
}

// NewUpstream starts an Upstream playing sc on a loopback port. It is
// closed at the end of the test, and any error met while answering (a bad
// substitution, a step Func failing) fails the test then.
func NewUpstream(t testing.TB, sc Scenario) *Upstream {
	t.Helper()
	u, err := New(sc)
	if err != nil {
		t.Fatalf("routertest: %v", err)
	}
	u.Start()
	t.Cleanup(func() {
		u.Close()
		for _, err := range u.Errors() {
			t.Errorf("routertest upstream: %v", err)
		}
	})
	return u
}

// Start serves u on a loopback port (see URL).
func (u *Upstream) Start() {
	u.srv = httptest.NewServer(u)
}

// Close stops serving and waits for active requests to end.
func (u *Upstream) Close() {
	if u.srv != nil {
		u.srv.CloseClientConnections()
		u.srv.Close()
	}
}

// URL is the API base, "http://127.0.0.1:PORT/v1": a Codex provider's
// base_url, or the router's --upstream.
func (u *Upstream) URL() string { return u.Origin() + "/v1" }

// Origin is "http://127.0.0.1:PORT" without a path.
func (u *Upstream) Origin() string {
	if u.srv == nil {
		return ""
	}
	return u.srv.URL
}

// Requests returns a copy of every request received so far, in arrival
// order.
func (u *Upstream) Requests() []Request {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]Request(nil), u.requests...)
}

// Posts returns the POST …/responses requests, in arrival order.
func (u *Upstream) Posts() []Request {
	var out []Request
	for _, r := range u.Requests() {
		if r.IsResponses() {
			out = append(out, r)
		}
	}
	return out
}

// Remaining is the number of steps not played yet.
func (u *Upstream) Remaining() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.sc.Steps) - u.next
}

// Errors returns the problems met while answering requests.
func (u *Upstream) Errors() []error {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]error(nil), u.errs...)
}

func (u *Upstream) fail(err error) {
	u.mu.Lock()
	u.errs = append(u.errs, err)
	u.mu.Unlock()
}

// ServeHTTP records the request and answers it.
func (u *Upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		http.Error(w, "routertest: reading body: "+err.Error(), http.StatusBadRequest)
		return
	}
	req := Request{
		Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery,
		Header: r.Header.Clone(), Body: body, Step: -1,
	}
	responses := r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses")
	var step Step
	if responses {
		step, req.Step = u.pick(req)
	}
	idx := u.record(req)
	switch {
	case r.Method == http.MethodGet && strings.EqualFold(r.Header.Get("Upgrade"), "websocket"):
		writeJSON(w, http.StatusNotFound, nil, []byte(`{"error":"websocket not supported"}`))
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		u.serveModels(w)
	case responses:
		u.serveResponse(w, r, idx, req, step)
	default:
		writeJSON(w, http.StatusNotFound, nil, errorBody("routertest: no route for "+r.Method+" "+r.URL.Path))
	}
}

// pick chooses the step for req and advances the cursor when it is used.
func (u *Upstream) pick(req Request) (Step, int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.next < len(u.sc.Steps) {
		cand := u.sc.Steps[u.next]
		if cand.WhenRequestKind == "" || cand.WhenRequestKind == req.Kind() {
			u.next++
			return cand, u.next - 1
		}
	}
	if u.sc.Default != nil {
		return *u.sc.Default, -1
	}
	return Step{Message: "done"}, -1
}

func (u *Upstream) record(req Request) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	req.Index = len(u.requests)
	u.requests = append(u.requests, req)
	return req.Index
}

func (u *Upstream) setEvents(idx int, events []json.RawMessage) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.requests[idx].Events = events
}

func (u *Upstream) serveModels(w http.ResponseWriter) {
	body := []byte(u.sc.Models)
	if len(body) == 0 {
		body = []byte(`{"models":[]}`)
	}
	etag := u.sc.ModelsETag
	if etag == "" {
		etag = `"fake-models-1"`
	}
	writeJSON(w, http.StatusOK, map[string]string{"ETag": etag}, body)
}

func (u *Upstream) serveResponse(w http.ResponseWriter, r *http.Request, idx int, req Request, step Step) {
	step, err := step.resolve(req)
	if err == nil {
		err = step.validate()
	}
	if err != nil {
		err = fmt.Errorf("request %d (step %d): %w", idx, req.Step, err)
		u.fail(err)
		writeJSON(w, http.StatusInternalServerError, nil, errorBody("routertest: "+err.Error()))
		return
	}
	if step.DelayMS > 0 {
		select {
		case <-time.After(time.Duration(step.DelayMS) * time.Millisecond):
		case <-r.Context().Done():
			return
		}
	}
	if step.Status != 0 && step.Status != http.StatusOK {
		body := []byte(step.Body)
		if len(body) == 0 {
			body = errorBody(fmt.Sprintf("routertest: scripted status %d", step.Status))
		}
		writeJSON(w, step.Status, step.Headers, body)
		return
	}
	respID := fmt.Sprintf("resp_%d", idx+1)
	model := gjson.GetBytes(req.Body, "model").String()
	events, final, err := build(step, respID, model)
	if err == nil && len(step.Events) > 0 {
		events = step.Events
	}
	if err == nil {
		events, err = numbered(events, step.NoSequence)
	}
	if err != nil {
		u.fail(fmt.Errorf("request %d: %w", idx, err))
		writeJSON(w, http.StatusInternalServerError, nil, errorBody("routertest: "+err.Error()))
		return
	}
	u.setEvents(idx, events)
	if s := gjson.GetBytes(req.Body, "stream"); s.Exists() && !s.Bool() {
		writeJSON(w, http.StatusOK, step.Headers, final)
		return
	}
	writeSSE(r.Context(), w, step.Headers, events, time.Duration(step.EventDelayMS)*time.Millisecond)
}

func writeSSE(ctx context.Context, w http.ResponseWriter, headers map[string]string, events []json.RawMessage, gap time.Duration) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	for k, v := range headers {
		h.Set(k, v)
	}
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	for i, ev := range events {
		if i > 0 && gap > 0 {
			select {
			case <-time.After(gap):
			case <-ctx.Done():
				return
			}
		}
		typ := gjson.GetBytes(ev, "type").String()
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, ev); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
}

func writeJSON(w http.ResponseWriter, status int, headers map[string]string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	for k, v := range headers {
		h.Set(k, v)
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func errorBody(msg string) []byte {
	b, _ := marshal(obj{{"error", obj{{"message", msg}, {"type", "invalid_request_error"}, {"code", "routertest"}}}})
	return b
}
