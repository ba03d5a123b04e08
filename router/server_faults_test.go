package router

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"hpatch-router/router/request"
)

func TestServeFaults(t *testing.T) {
	t.Run("malformed JSON is refused before forwarding", func(t *testing.T) {
		h := newHarness(t, func(w http.ResponseWriter, r *http.Request) { t.Error("forwarded") })
		for _, body := range []string{`{"input":[`, `[1,2]`, ``, `nul`} {
			wantRouterError(t, h.post(body), 400, request.CodeInvalidJSON)
		}
	})
	t.Run("oversized body gets 413", func(t *testing.T) {
		h := newHarness(t, func(w http.ResponseWriter, r *http.Request) { t.Error("forwarded") }, MaxRequestBody(64))
		wantRouterError(t, h.post(`{"input":"`+strings.Repeat("x", 100)+`"}`), 413, "request_too_large")
	})
	t.Run("oversized bodies on forwarded paths get 413 too", func(t *testing.T) {
		h := newHarness(t, func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) }, MaxRequestBody(64))
		big := strings.Repeat("x", 100)
		req, _ := http.NewRequest("POST", h.front.URL+"/v1/responses/compact", strings.NewReader(big))
		wantRouterError(t, h.do(req), 413, "request_too_large")
		req, _ = http.NewRequest("POST", h.front.URL+"/v1/responses/compact", io.NopCloser(strings.NewReader(big)))
		req.ContentLength = -1 // chunked: the bound trips while streaming
		wantRouterError(t, h.do(req), 413, "request_too_large")
	})
	t.Run("request rewrite errors keep their status and code", func(t *testing.T) {
		h := newHarness(t, func(w http.ResponseWriter, r *http.Request) { t.Error("forwarded") })
		wantRouterError(t, h.post(`{"tools":[{"type":"custom","name":"exec"}],"input":[]}`), 400, request.CodeUnsupportedToolLayout)
	})
	t.Run("upstream 4xx and 5xx are relayed as they are", func(t *testing.T) {
		for _, status := range []int{401, 429, 500, 503} {
			body := `{"error":{"message":"upstream says no","type":"x","code":"y"}}`
			h := newHarness(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Retry-After", "7")
				w.WriteHeader(status)
				io.WriteString(w, body)
			})
			resp := h.post(ownedRequest())
			if got := readAll(t, resp); resp.StatusCode != status || got != body || resp.Header.Get("Retry-After") != "7" {
				t.Fatalf("%d: got %d %s", status, resp.StatusCode, got)
			}
		}
	})
	t.Run("upstream unreachable gives 502", func(t *testing.T) {
		h := newHarness(t, func(w http.ResponseWriter, r *http.Request) {})
		h.upstream.Close()
		wantRouterError(t, h.post(`{}`), 502, "upstream_unreachable")
		if m := readAll(t, h.do(mustReq("GET", h.front.URL+"/metrics"))); !strings.Contains(m, `hpatch_router_faults_total{kind="upstream_unreachable"} 1`) {
			t.Fatalf("the fault is not counted:\n%s", m)
		}
	})
	t.Run("upstream never starting gives 504", func(t *testing.T) {
		b := newBlock()
		h := newHarness(t, func(w http.ResponseWriter, r *http.Request) { b.wait(r) },
			ResponseStartTimeout(50*time.Millisecond))
		wantRouterError(t, h.post(`{}`), 504, "upstream_timeout")
		b.ended(t)
	})
	t.Run("upstream reset mid-stream ends the stream without a partial carrier", func(t *testing.T) {
		s := &stream{}
		s.created()
		s.call("ctc_sh1", "call_1", "shell", "functions", pyInput, 4)
		h := newHarness(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, strings.Join(s.frames[:4], ""))
			w.(http.Flusher).Flush()
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		})
		resp := h.post(ownedRequest(), "Thread-Id", "t")
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != s.frames[0] {
			t.Fatalf("got %q", got)
		}
	})
	t.Run("an event over the size bound ends the stream", func(t *testing.T) {
		s := &stream{}
		s.created()
		s.message("msg_1", strings.Repeat("x", 4096))
		h := newHarness(t, sseHandler(s.String()), withMaxEventSize(1024))
		if got := readAll(t, h.post(ownedRequest())); got != s.frames[0]+s.frames[1] {
			t.Fatalf("got %q", got)
		}
		if m := readAll(t, h.do(mustReq("GET", h.front.URL+"/metrics"))); !strings.Contains(m, `hpatch_router_faults_total{kind="event_too_large"} 1`) {
			t.Fatalf("metrics:\n%s", m)
		}
	})
	t.Run("stream idle timeout ends the stream", func(t *testing.T) {
		b := newBlock()
		s := &stream{}
		s.created()
		h := newHarness(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, s.frames[0])
			w.(http.Flusher).Flush()
			b.wait(r)
		}, StreamIdleTimeout(100*time.Millisecond))
		resp := h.post(ownedRequest())
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != s.frames[0] {
			t.Fatalf("got %q", got)
		}
		b.ended(t)
	})
	t.Run("Codex cancelling mid-stream cancels the upstream request", func(t *testing.T) {
		for _, owned := range []bool{true, false} {
			b := newBlock()
			s := &stream{}
			s.created()
			body := ownedRequest()
			if !owned {
				body = `{}`
			}
			h := newHarness(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, s.frames[0])
				w.(http.Flusher).Flush()
				b.wait(r)
			})
			ctx, cancel := context.WithCancel(context.Background())
			req, _ := http.NewRequestWithContext(ctx, "POST", h.front.URL+"/v1/responses", strings.NewReader(body))
			resp := h.do(req)
			if _, err := readEvent(bufio.NewReader(resp.Body)); err != nil {
				t.Fatal(err)
			}
			cancel()
			resp.Body.Close()
			b.ended(t)
		}
	})
}
