package router

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"hpatch-router/router/request"
)

// TestServeRealCaptureRoundTrip runs the production request rewrite and
// translator over a real Codex 0.169 request: the model gets `shell`, its
// shell call reaches Codex as an exec carrier that calls
// tools.exec_command, and the echoed carrier is restored in the next
// request and the one after it.
func TestServeRealCaptureRoundTrip(t *testing.T) {
	first, err := os.ReadFile("../testdata/codex/captures/cli-lite-exec/000-post.json")
	if err != nil {
		t.Fatal(err)
	}
	s := &stream{}
	s.created()
	original := s.call("ctc_1", "call_py", "shell", "functions", pyInput, 3)
	s.completed()
	up := &replayUpstream{first: s.String()}
	rt := productionRouter(t, up.handler)
	post := func(body []byte) string {
		req := httptest.NewRequest("POST", "/v1/responses", strings.NewReader(string(body)))
		req.Header.Set("Thread-Id", "01a23618-3154-7773-b8cb-233739215f5f")
		rec := httptest.NewRecorder()
		rt.ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		return rec.Body.String()
	}
	out := post(first)
	if !strings.Contains(up.body(0), `"name":"shell"`) {
		t.Fatal("the upstream request has no shell tool")
	}
	var carrier string
	for _, e := range parseEvents(t, []byte(out)) {
		if e.data["type"] == "response.output_item.done" {
			item := e.data["item"].(map[string]any)
			if item["name"] != "exec" || item["namespace"] != "functions" {
				t.Fatalf("carrier item %v", item)
			}
			carrier = item["input"].(string)
		}
	}
	if !strings.Contains(carrier, "tools.exec_command(") {
		t.Fatalf("carrier %q", carrier)
	}
	echo := echoOf("ctc_1", "call_py", "functions", carrier)
	n := gjson.GetBytes(first, "input.#").Int()
	second, _ := sjson.SetRawBytes(first, "input."+itoa(n), []byte(echo))
	second, _ = sjson.SetRawBytes(second, "input."+itoa(n+1), []byte(`{"type":"custom_tool_call_output","id":"ctco_1","call_id":"call_py","output":"Script completed\n"}`))
	post(second)
	got := gjson.Get(up.body(1), "input."+itoa(n)).Raw
	if got != original {
		t.Fatalf("restored item\n%s\nwant\n%s", got, original)
	}
	// The restore and the rewrite are applied together, as pieces of the
	// body Codex sent: the upstream gets exactly the rewrite of the
	// restored body.
	restored, _ := sjson.SetRawBytes(second, "input."+itoa(n), []byte(original))
	if want, _, err := rewrittenBody(restored); err != nil || up.body(1) != string(want) {
		t.Fatalf("the upstream body is not the rewrite of the restored body (%v)", err)
	}
	if gjson.Get(up.body(1), "input."+itoa(n+1)+".id").String() != "ctco_1" {
		t.Fatal("output item changed")
	}
	// The next turn resumes from what the thread's earlier requests left
	// behind.
	third, _ := sjson.SetRawBytes(second, "input."+itoa(n+2), []byte(`{"type":"message","role":"user","content":[{"type":"input_text","text":"and again"}]}`))
	post(third)
	restored, _ = sjson.SetRawBytes(third, "input."+itoa(n), []byte(original))
	if want, _, err := rewrittenBody(restored); err != nil || up.body(2) != string(want) {
		t.Fatalf("third request: the upstream body is not the rewrite of the restored body (%v)", err)
	}
}

// productionRouter is a router with the production request rewrite and
// translator in front of an upstream served by h.
func productionRouter(t *testing.T, h http.HandlerFunc) *Router {
	t.Helper()
	upstream := httptest.NewServer(h)
	t.Cleanup(upstream.Close)
	u, _ := url.Parse(upstream.URL)
	rt, err := New(Upstream(u), StateDir(t.TempDir()), Logger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestServeSendsRewrittenPieces checks that the rewritten body, sent as
// pieces, reaches the upstream as exactly the request stage's rewrite with an
// exact Content-Length, and that a retry (GetBody) sends them again whole.
func TestServeSendsRewrittenPieces(t *testing.T) {
	body, err := os.ReadFile("../testdata/codex/captures/cli-lite-exec/000-post.json")
	if err != nil {
		t.Fatal(err)
	}
	want, info, err := rewrittenBody(body)
	if err != nil || !info.Owned {
		t.Fatalf("rewrite: owned %v, %v", info.Owned, err)
	}
	var got []byte
	var length, header string
	rt := productionRouter(t, func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		length, header = strconv.FormatInt(r.ContentLength, 10), r.Header.Get("Content-Length")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"output":[]}`)
	})
	for range 2 { // the second request finds the tools item in the memo
		req := httptest.NewRequest("POST", "/v1/responses", bytes.NewReader(body))
		req.Header.Set("Thread-Id", "01a23618-3154-7773-b8cb-233739215f5f")
		rec := httptest.NewRecorder()
		rt.ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("upstream got %d bytes, want the rewrite's %d", len(got), len(want))
		}
		if n := strconv.Itoa(len(want)); length != n || header != n {
			t.Fatalf("Content-Length %s (header %q), want %s", length, header, n)
		}
	}
	req, err := request.Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	pieces, _, err := rt.rewriter.Rewrite(req, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := rt.outboundRequest(context.Background(), httptest.NewRequest("POST", "/v1/responses", nil), pieces, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		rc := out.Body
		if i > 0 {
			if rc, err = out.GetBody(); err != nil {
				t.Fatal(err)
			}
		}
		b, _ := io.ReadAll(rc)
		if !bytes.Equal(b, want) {
			t.Fatalf("read %d: %d bytes, want %d", i, len(b), len(want))
		}
	}
}

// The upstream request is built from a shallow copy of the client's: what
// it changes (header, URL, trailer) are its own copies, so the client's
// request reads as it came.
func TestOutboundRequestLeavesTheClientRequestAlone(t *testing.T) {
	rt := newTestRouter(t)
	in := httptest.NewRequest("POST", "/v1/responses?x=1", strings.NewReader("{}"))
	in.Header.Set("Connection", "X-Hop")
	in.Header.Set("X-Hop", "1")
	in.Header.Set("Accept-Encoding", "gzip")
	in.Trailer = http.Header{"X-Trail": nil}
	in.TransferEncoding = []string{"chunked"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, err := rt.outboundRequest(ctx, in, net.Buffers{[]byte("{}")}, true)
	if err != nil {
		t.Fatal(err)
	}
	if out.Header.Get("X-Hop") != "" || out.Header.Get("Accept-Encoding") != "" || out.Header.Get("Content-Length") != "2" {
		t.Fatalf("outbound header %v", out.Header)
	}
	if out.URL.String() != "http://upstream.invalid/base/responses?x=1" {
		t.Fatalf("outbound URL %s", out.URL)
	}
	out.Header.Set("X-Out", "1")
	out.Trailer.Set("X-Trail", "v")
	out.TransferEncoding[0] = "identity"
	out.URL.Path = "/elsewhere"
	if in.Header.Get("X-Hop") != "1" || in.Header.Get("Accept-Encoding") != "gzip" || in.Header.Get("X-Out") != "" {
		t.Fatalf("client header changed: %v", in.Header)
	}
	if in.Trailer.Get("X-Trail") != "" || in.TransferEncoding[0] != "chunked" || in.URL.Path != "/v1/responses" {
		t.Fatalf("client request changed: trailer %v, transfer encoding %v, path %s", in.Trailer, in.TransferEncoding, in.URL.Path)
	}
	if out.Context() != ctx {
		t.Fatal("outbound request does not carry the round trip's context")
	}
}

// copyHeaders' copies are the destination's own: changing or appending to
// one key's values touches neither the source nor another key's values.
func TestCopyHeadersCopiesAreIndependent(t *testing.T) {
	src := http.Header{
		"A":          {"a1", "a2"},
		"B":          {"b1"},
		"C":          {"c1", "c2", "c3"},
		"Connection": {"Keep-Alive, x-named"},
		"X-Named":    {"dropped"},
		"Keep-Alive": {"dropped"},
		"Empty":      {},
	}
	want := src.Clone()
	dst := http.Header{"A": {"old"}}
	copyHeaders(dst, src)
	for _, k := range []string{"Connection", "X-Named", "Keep-Alive"} {
		if _, ok := dst[k]; ok {
			t.Fatalf("%s was copied", k)
		}
	}
	for _, k := range []string{"A", "B", "C"} {
		if !slices.Equal(dst[k], src[k]) {
			t.Fatalf("%s: %q, want %q", k, dst[k], src[k])
		}
	}
	if v, ok := dst["Empty"]; !ok || len(v) != 0 {
		t.Fatalf("Empty: %q, %v", v, ok)
	}
	for k := range dst {
		dst[k] = append(dst[k], "appended")
		if len(dst[k]) > 1 {
			dst[k][0] = "changed"
		}
	}
	for _, k := range []string{"A", "B", "C"} {
		if dst[k][len(dst[k])-1] != "appended" || (len(dst[k]) > 2 && dst[k][1] != src[k][1]) {
			t.Fatalf("%s: %q: another key's append reached it", k, dst[k])
		}
	}
	if !reflect.DeepEqual(src, want) {
		t.Fatalf("source changed: %v", src)
	}
}
