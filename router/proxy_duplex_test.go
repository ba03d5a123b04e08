package router

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestForwardStreamsBodyWhileResponseFlows guards the passthrough path
// against net/http draining the client's request body as soon as the
// router writes response headers: the upstream here answers first and
// reads the request afterwards, as a streaming API may. Without full
// duplex the transport's body write fails and the upstream connection is
// closed under the response, so the final line never arrives.
func TestForwardStreamsBodyWhileResponseFlows(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if err := rc.EnableFullDuplex(); err != nil {
			t.Errorf("upstream full duplex: %v", err)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: started\n\n")
		_ = rc.Flush()
		n, err := io.Copy(io.Discard, r.Body)
		fmt.Fprintf(w, "data: read %d %v\n\n", n, err)
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL)
	rt, err := New(Upstream(u), WithMode(ModePassthrough))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	front := httptest.NewServer(rt)
	defer front.Close()

	const size = 2 << 20 // well past net/http's 256 KiB post-handler drain
	pr, pw := io.Pipe()
	go func() {
		chunk := []byte(strings.Repeat("x", 64<<10))
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := pw.Write(chunk); err != nil {
				return
			}
		}
		pw.Close()
	}()
	req, _ := http.NewRequest(http.MethodPost, front.URL+"/v1/responses", pr)
	req.ContentLength = size
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the relayed stream: %v (got %q)", err, got)
	}
	want := fmt.Sprintf("data: read %d <nil>", size)
	if !strings.Contains(string(got), want) {
		t.Fatalf("relayed stream = %q, want it to end with %q", got, want)
	}
}
