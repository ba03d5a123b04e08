package router

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// rawRequest sends target exactly as given (no client-side cleaning) and
// returns the response.
func rawRequest(t *testing.T, frontURL, method, target string) *http.Response {
	t.Helper()
	u, _ := url.Parse(frontURL)
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, method+" "+target+" HTTP/1.1\r\nHost: "+u.Host+"\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestServePathsStayUnderUpstreamBase: dot segments, encoded or not, are
// cleaned before routing, so nothing leaves /v1/ on the way in or the
// upstream base path on the way out.
func TestServePathsStayUnderUpstreamBase(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	h := newHarness(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.EscapedPath())
		mu.Unlock()
		io.WriteString(w, "upstream "+r.URL.EscapedPath())
	})
	cases := []struct {
		target string
		status int
		want   string // upstream path, or the router's error code
	}{
		{"/v1/../../x", 404, "not_found"},
		{"/v1/../x", 404, "not_found"},
		{"/v1/%2e%2e/%2e%2e/x", 404, "not_found"},
		{"/v1/%2E%2E/x", 404, "not_found"},
		{"/v1/a%2F..%2F..%2F..%2Fx", 404, "not_found"},
		{"/v1/..%5C..%5Cx", 400, "invalid_path"},
		{"/v1/./models", 200, "/base/models"},
		{"/v1/a/../models", 200, "/base/models"},
		{"//v1//models", 200, "/base/models"},
		{"/v1/models/", 200, "/base/models/"},
		{"/v1/a%2Fb", 200, "/base/a%2Fb"},
	}
	for _, c := range cases {
		resp := rawRequest(t, h.front.URL, "GET", c.target)
		if c.status != 200 {
			wantRouterError(t, resp, c.status, c.want)
			continue
		}
		if got := readAll(t, resp); resp.StatusCode != 200 || got != "upstream "+c.want {
			t.Errorf("%s: %d %q, want upstream %s", c.target, resp.StatusCode, got, c.want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range seen {
		if !strings.HasPrefix(p, "/base/") || strings.Contains(p, "..") || strings.Contains(strings.ToLower(p), "%2e") {
			t.Errorf("upstream saw %s", p)
		}
	}
}

// TestServeDropsUpstreamCORSHeaders: no Access-Control-* header of the
// upstream reaches the client, on the raw relay, the rewritten SSE stream
// and the rewritten JSON response; other headers still pass.
func TestServeDropsUpstreamCORSHeaders(t *testing.T) {
	s := &stream{}
	s.call("ctc_1", "call_1", "shell", "functions", "ls", 1)
	s.completed()
	json := `{"id":"resp_1","object":"response","status":"completed","output":[` + callItem("ctc_1", "call_1", "shell", "functions", "ls", "completed") + `]}`
	h := newHarness(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		for _, k := range []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Credentials", "Access-Control-Allow-Headers", "Access-Control-Expose-Headers", "Access-Control-Max-Age"} {
			w.Header().Set(k, "*")
		}
		w.Header().Set("X-Models-Etag", "m1")
		switch {
		case r.URL.Path == "/base/models":
			io.WriteString(w, `{"models":[]}`)
		case strings.Contains(r.URL.RawQuery, "json"):
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, json)
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, s.String())
		}
	})
	post := func(query string) *http.Response {
		req, _ := http.NewRequest("POST", h.front.URL+"/v1/responses"+query, strings.NewReader(ownedRequest()))
		req.Header.Set("Thread-Id", "t1")
		return h.do(req)
	}
	for name, resp := range map[string]*http.Response{
		"raw":  h.do(mustReq("GET", h.front.URL+"/v1/models")),
		"sse":  post(""),
		"json": post("?json"),
	} {
		body := readAll(t, resp)
		if resp.StatusCode != 200 || resp.Header.Get("X-Models-Etag") != "m1" || body == "" {
			t.Errorf("%s: %d %v", name, resp.StatusCode, resp.Header)
		}
		for k := range resp.Header {
			if strings.HasPrefix(k, "Access-Control-") {
				t.Errorf("%s: %s reached the client", name, k)
			}
		}
	}
}
