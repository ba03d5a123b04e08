package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"hpatch-router/router/routertest"
)

// TestE2EShortBody (issue 33 case 9): a client that declares a
// Content-Length, sends less and half-closes the connection gets 400 in
// the OpenAI error shape from the real router, and nothing is forwarded.
// Before, it got an empty 200.
func TestE2EShortBody(t *testing.T) {
	t.Parallel()
	up := routertest.NewUpstream(t, routertest.Scenario{})
	r := startRouter(t, routerSpec{binDir: e2eBins.binDir(t), upstream: up.URL(), runtimeDir: t.TempDir()})
	addr := strings.TrimPrefix(r.URL, "http://")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := `{"model":"m","input":[`
	req := "POST /v1/responses HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n" + body
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	if err := c.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e struct {
		Error struct{ Message, Type, Code string } `json:"error"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(raw, &e) != nil ||
		e.Error.Code != "request_body_short" || e.Error.Type != "invalid_request_error" ||
		!strings.HasPrefix(e.Error.Message, "hpatch-router: ") {
		t.Fatalf("got %d %s, want 400 request_body_short in the OpenAI error shape", resp.StatusCode, raw)
	}
	if n := len(up.Requests()); n != 0 {
		t.Errorf("the upstream got %d requests, want none", n)
	}
}
