package router

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestServeShortBody: a body that ends before its declared length (a
// Content-Length larger than what was sent, or a cut chunked body) gets
// 400 request_body_short in the OpenAI error shape, never forwarded and
// never an empty 200. The client half-closes its side, as one that gave up
// sending does, and still reads the answer.
func TestServeShortBody(t *testing.T) {
	for _, tc := range []struct{ name, head, body string }{
		{"content-length larger than the body", "Content-Length: 100\r\n", `{"input":`},
		{"content-length one byte over", "Content-Length: 3\r\n", `{}`},
		{"chunked body cut inside a chunk", "Transfer-Encoding: chunked\r\n", "10\r\n{\"in"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, func(w http.ResponseWriter, r *http.Request) { t.Error("forwarded") })
			c, err := net.Dial("tcp", strings.TrimPrefix(h.front.URL, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			req := "POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + tc.head + "\r\n" + tc.body
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
			wantRouterError(t, resp, http.StatusBadRequest, codeShortBody)
		})
	}
}
