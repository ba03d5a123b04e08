package router

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// harness is a router in front of a fake upstream, both in process.
type harness struct {
	t        *testing.T
	upstream *httptest.Server
	router   *Router
	front    *httptest.Server
	client   *http.Client
}

func newHarness(t *testing.T, upstream http.HandlerFunc, opts ...Option) *harness {
	t.Helper()
	h := &harness{t: t}
	h.upstream = httptest.NewServer(upstream)
	u, _ := url.Parse(h.upstream.URL + "/base")
	h.router = newTestRouter(t, append([]Option{Upstream(u)}, opts...)...)
	h.front = httptest.NewServer(h.router)
	h.client = &http.Client{Transport: &http.Transport{}}
	t.Cleanup(func() {
		h.client.CloseIdleConnections()
		h.front.Close()
		h.router.Close()
		h.upstream.Close()
	})
	return h
}

func (h *harness) do(req *http.Request) *http.Response {
	h.t.Helper()
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp
}

func (h *harness) post(body string, hdr ...string) *http.Response {
	h.t.Helper()
	req, _ := http.NewRequest("POST", h.front.URL+"/v1/responses", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return h.do(req)
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantRouterError checks status and the OpenAI error shape.
func wantRouterError(t *testing.T, resp *http.Response, status int, code string) string {
	t.Helper()
	body := readAll(t, resp)
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d: %s", resp.StatusCode, status, body)
	}
	var e struct {
		Error struct{ Message, Type, Code string } `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error.Code != code || e.Error.Type == "" ||
		!strings.HasPrefix(e.Error.Message, "hpatch-router: ") {
		t.Fatalf("error body %s (code want %s)", body, code)
	}
	return e.Error.Message
}

func sseHandler(body string, hdr ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; i+1 < len(hdr); i += 2 {
			w.Header().Set(hdr[i], hdr[i+1])
		}
		io.WriteString(w, body)
	}
}

func TestServeForwardsModelsUnchanged(t *testing.T) {
	const catalog = `{"models":[{"slug":"router-test"}]}`
	h := newHarness(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/base/models" || r.URL.RawQuery != "client_version=0.169.0" {
			t.Errorf("upstream got %s", r.URL)
		}
		if r.Header.Get("Authorization") != "Bearer sk-cmd-token" || r.Header.Get("Originator") != "codex_exec" {
			t.Errorf("headers not forwarded: %v", r.Header)
		}
		if r.Header.Get("X-Hop") != "" || r.Header.Get("Keep-Alive") != "" {
			t.Errorf("hop-by-hop header forwarded: %v", r.Header)
		}
		if _, ok := r.Header["User-Agent"]; ok {
			t.Errorf("router added a User-Agent")
		}
		w.Header().Set("ETag", `"fake-models-1"`)
		w.Header().Set("X-Models-Etag", "m1")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, catalog)
	})
	req, _ := http.NewRequest("GET", h.front.URL+"/v1/models?client_version=0.169.0", nil)
	req.Header.Set("Authorization", "Bearer sk-cmd-token")
	req.Header.Set("Originator", "codex_exec")
	req.Header.Set("Connection", "X-Hop")
	req.Header.Set("X-Hop", "1")
	req.Header.Set("Keep-Alive", "timeout=5")
	req.Header["User-Agent"] = nil
	resp := h.do(req)
	if body := readAll(t, resp); body != catalog || resp.Header.Get("ETag") != `"fake-models-1"` || resp.Header.Get("X-Models-Etag") != "m1" {
		t.Fatalf("got %d %v %s", resp.StatusCode, resp.Header, body)
	}
}

func TestServeRoutes(t *testing.T) {
	h := newHarness(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Method+" "+r.URL.RequestURI())
	})
	for path, want := range map[string]string{
		"/v1/responses/compact": "POST /base/responses/compact",
		"/v1/a%2Fb?x=1&y=%20":   "POST /base/a%2Fb?x=1&y=%20",
	} {
		req, _ := http.NewRequest("POST", h.front.URL+path, strings.NewReader("{}"))
		if got := readAll(t, h.do(req)); got != want {
			t.Errorf("%s → %q, want %q", path, got, want)
		}
	}
	resp := h.do(mustReq("GET", h.front.URL+"/healthz"))
	if readAll(t, resp) != "ok\n" {
		t.Fatal("healthz")
	}
	wantRouterError(t, h.do(mustReq("GET", h.front.URL+"/nope")), 404, "not_found")
}

func mustReq(method, u string) *http.Request {
	r, _ := http.NewRequest(method, u, nil)
	return r
}

func TestServeResponsesRewritesAndFlushes(t *testing.T) {
	s := &stream{}
	s.created()
	s.call("ctc_sh1", "call_1", "shell", "functions", pyInput, 3)
	s.completed()
	release := make(chan struct{})
	h := newHarness(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Codex-Turn-State", "ts-1")
		io.WriteString(w, s.frames[0])
		w.(http.Flusher).Flush()
		select { // the rest only once the client saw the first event
		case <-release:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, strings.Join(s.frames[1:], ""))
	})
	resp := h.post(ownedRequest(), "Thread-Id", "thread-1")
	if resp.Header.Get("X-Codex-Turn-State") != "ts-1" || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("headers %v", resp.Header)
	}
	br := bufio.NewReader(resp.Body)
	first, err := readEvent(br)
	if err != nil || first != s.frames[0] {
		t.Fatalf("first event %q, %v", first, err)
	}
	close(release)
	rest, _ := io.ReadAll(br)
	resp.Body.Close()
	out := []byte(first + string(rest))
	checkNoModelTools(t, out)
	evs := parseEvents(t, out)
	checkSequence(t, evs)
	if d := eventsOf(evs, "response.output_item.done", "ctc_sh1"); len(d) != 1 || d[0].data["item"].(map[string]any)["name"] != "exec" {
		t.Fatalf("no carrier in %s", out)
	}
}

func readEvent(br *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		line, err := br.ReadString('\n')
		b.WriteString(line)
		if err != nil || line == "\n" {
			return b.String(), err
		}
	}
}

func TestServeNonStreamingJSON(t *testing.T) {
	item := callItem("ctc_1", "call_1", "shell", "functions", "ls", "completed")
	body := `{"id":"resp_1","object":"response","status":"completed","output":[{"type":"reasoning","id":"rs","summary":[]},` + item + `],"usage":{"total_tokens":3}}`
	h := newHarness(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	})
	resp := h.post(ownedRequestStreaming(false), "Thread-Id", "t1")
	got := readAll(t, resp)
	carrier := callItem("ctc_1", "call_1", "exec", "functions", "carrier(direct|ls|false|)", "completed")
	if want := strings.Replace(body, item, carrier, 1); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestServePassthroughMode(t *testing.T) {
	s := &stream{}
	s.call("ctc_1", "call_1", "shell", "functions", "ls", 2)
	s.completed()
	const req = `{"input":[{"type":"custom_tool_call","name":"exec","call_id":"call_1","input":"x"}]}`
	h := newHarness(t, func(w http.ResponseWriter, r *http.Request) {
		if b, _ := io.ReadAll(r.Body); string(b) != req {
			t.Errorf("body changed: %s", b)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, s.String())
	}, WithMode(ModePassthrough))
	if got := readAll(t, h.post(req, "Thread-Id", "t")); got != s.String() {
		t.Fatalf("passthrough changed the stream")
	}
}

func TestServeMetrics(t *testing.T) {
	s := &stream{}
	s.call("ctc_1", "call_1", "shell", "functions", pyInput, 2)
	s.completed()
	h := newHarness(t, sseHandler(s.String()))
	readAll(t, h.post(ownedRequest(), "Thread-Id", "t"))
	got := readAll(t, h.do(mustReq("GET", h.front.URL+"/metrics")))
	for _, want := range []string{
		`hpatch_router_requests_total{route="responses"} 1`,
		"hpatch_router_request_rewrites_total 1",
		"hpatch_router_carriers_total 1",
		`hpatch_router_shell_calls_total{kind="worker",interpreter="python3"} 1`,
		"# TYPE hpatch_router_upstream_latency_seconds histogram",
		`hpatch_router_upstream_latency_seconds_bucket{le="+Inf"} 1`,
		"hpatch_router_upstream_latency_seconds_count 1",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("metrics lack %q:\n%s", want, got)
		}
	}
}

// blockUntilDone is an upstream that answers nothing until the request
// ends, and records that it ended.
type blockUntilDone struct {
	once sync.Once
	done chan struct{}
}

func newBlock() *blockUntilDone { return &blockUntilDone{done: make(chan struct{})} }

func (b *blockUntilDone) wait(r *http.Request) {
	io.Copy(io.Discard, r.Body) // the server notices a gone client only after the body
	select {
	case <-r.Context().Done():
		b.once.Do(func() { close(b.done) })
	case <-time.After(10 * time.Second):
	}
}

func (b *blockUntilDone) ended(t *testing.T) {
	t.Helper()
	select {
	case <-b.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream request was not cancelled")
	}
}

var _ = context.Background

// An event is flushed even when the start of the next one arrived with it.
func TestServeFlushesBeforePartialEvent(t *testing.T) {
	s := &stream{}
	s.created()
	s.message("msg_1", "hello")
	release := make(chan struct{})
	h := newHarness(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		half := len(s.frames[1]) / 2
		io.WriteString(w, s.frames[0]+s.frames[1][:half])
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, s.frames[1][half:]+strings.Join(s.frames[2:], ""))
	})
	resp := h.post(ownedRequest())
	defer resp.Body.Close()
	first, err := readEvent(bufio.NewReader(resp.Body))
	close(release)
	if err != nil || first != s.frames[0] {
		t.Fatalf("first event %q, %v", first, err)
	}
}
