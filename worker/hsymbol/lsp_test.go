//go:build linux

package hsymbol

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hpatch-router/rows"
	"io"
	"net/textproto"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func hashOf(s string) string { return rows.Hash([]byte(s)) }

// fakeServer reads framed requests from r and answers each with script's
// reply for its method, after sending a notification and a server request.
func fakeServer(t *testing.T, r io.Reader, w io.Writer, reply map[string]string) {
	br := bufio.NewReader(r)
	tp := textproto.NewReader(br)
	write := func(body string) {
		fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	for {
		hdr, err := tp.ReadMIMEHeader()
		if err != nil {
			return
		}
		n, _ := strconv.Atoi(hdr.Get("Content-Length"))
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			return
		}
		var m message
		if err := json.Unmarshal(body, &m); err != nil {
			t.Errorf("client sent bad JSON %q", body)
			return
		}
		if m.ID == nil || m.Method == "" {
			continue // notifications and our answers
		}
		write(`{"jsonrpc":"2.0","method":"window/logMessage","params":{"type":3,"message":"hi"}}`)
		write(`{"jsonrpc":"2.0","id":"srv1","method":"workspace/configuration","params":{"items":[{},{}]}}`)
		// The client must answer the configuration request before ours.
		hdr, err = tp.ReadMIMEHeader()
		if err != nil {
			return
		}
		n, _ = strconv.Atoi(hdr.Get("Content-Length"))
		ans := make([]byte, n)
		_, _ = io.ReadFull(br, ans)
		if !strings.Contains(string(ans), `"id":"srv1"`) || !strings.Contains(string(ans), `"result":[null,null]`) {
			t.Errorf("configuration answer %q", ans)
		}
		res, ok := reply[m.Method]
		if !ok {
			write(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"no such method"}}`)
			continue
		}
		if res == "" {
			continue // never answer
		}
		write(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + res + `}`)
	}
}

func TestClientCallAnswersServerRequestsAndSkipsNotifications(t *testing.T) {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	go fakeServer(t, sr, sw, map[string]string{
		"textDocument/definition": `{"uri":"file:///w/a.go","range":{"start":{"line":3,"character":0},"end":{"line":5,"character":1}}}`,
		"slow":                    "",
	})
	c := startClient("fake", cw, cr)
	defer c.stop()
	var raw json.RawMessage
	// The fake answers only after its own request was answered.
	bounded, stop := context.WithTimeout(t.Context(), time.Minute)
	defer stop()
	if err := c.call(bounded, "textDocument/definition", map[string]any{}, &raw); err != nil {
		t.Fatal(err)
	}
	locs, err := parseLocations(raw)
	if err != nil || len(locs) != 1 || locs[0] != (location{"/w/a.go", 3, 5}) {
		t.Fatalf("%v %v", locs, err)
	}
	if err := c.call(t.Context(), "nope", nil, nil); err == nil || !strings.Contains(err.Error(), "fake answered nope with error -32601") {
		t.Fatalf("error response: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if err := c.call(ctx, "slow", nil, nil); err == nil || !strings.Contains(err.Error(), "did not answer slow in time") {
		t.Fatalf("timeout: %v", err)
	}
	_ = sw.Close()
	if err := c.call(t.Context(), "after", nil, nil); err == nil || !strings.Contains(err.Error(), "ended the session") {
		t.Fatalf("closed stream: %v", err)
	}
}

// halvingWriter writes each frame in two parts and lets other goroutines
// run in between, as an io.Writer may.
type halvingWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *halvingWriter) Write(p []byte) (int, error) {
	half := len(p) / 2
	w.part(p[:half])
	runtime.Gosched()
	w.part(p[half:])
	return len(p), nil
}

func (w *halvingWriter) part(p []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
}

// TestClientFramesStayWhole: concurrent calls and notifications on one
// connection never interleave their frames.
func TestClientFramesStayWhole(t *testing.T) {
	w := &halvingWriter{}
	c := startClient("fake", w, strings.NewReader(""))
	defer c.stop()
	const senders = 16
	var wg sync.WaitGroup
	for i := range senders {
		wg.Go(func() {
			for range 20 {
				if err := c.notify("n", map[string]any{"from": i, "pad": strings.Repeat("x", i*50)}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	r := newClient("check", io.Discard, bytes.NewReader(w.buf.Bytes()))
	n := 0
	for m := range r.incoming {
		if m.Method != "n" {
			t.Fatalf("frame %d is not a whole notification: %+v", n, m)
		}
		n++
	}
	if n != senders*20 {
		t.Fatalf("%d whole frames of %d sent", n, senders*20)
	}
}

func TestParseLocations(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []location
	}{
		{name: "null is no location", raw: "null"},
		{name: "one Location", raw: `{"uri":"file:///a%20b/c.go","range":{"start":{"line":1},"end":{"line":2}}}`,
			want: []location{{"/a b/c.go", 1, 2}}},
		{name: "Location array", raw: `[{"uri":"file:///x.py","range":{"start":{"line":0},"end":{"line":0}}}]`,
			want: []location{{"/x.py", 0, 0}}},
		{name: "LocationLink uses the selection range", raw: `[{"targetUri":"file:///t.ts","targetRange":{"start":{"line":1},"end":{"line":9}},"targetSelectionRange":{"start":{"line":2},"end":{"line":2}}}]`,
			want: []location{{"/t.ts", 2, 2}}},
		{name: "non-file URIs are skipped", raw: `[{"uri":"untitled:1","range":{"start":{"line":0},"end":{"line":0}}}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseLocations(json.RawMessage(tc.raw))
			if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("got %v %v, want %v", got, err, tc.want)
			}
		})
	}
}

// FuzzClientServe: whatever a server writes, serve answers and routes it
// without panicking, and a call ends with its answer or an error once the
// stream does.
func FuzzClientServe(f *testing.F) {
	frame := func(body string) string { return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body }
	f.Add([]byte(frame(`{"jsonrpc":"2.0","id":1,"result":[{"uri":"file:///a.go","range":{"start":{"line":1},"end":{"line":1}}}]}`)))
	f.Add([]byte(frame(`{"jsonrpc":"2.0","id":"x","method":"workspace/configuration","params":{"items":[1,2]}}`) +
		frame(`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"no"}}`)))
	f.Add([]byte(frame(`{"id":1}`) + frame(`{"id":1,"result":null}`)))
	f.Add([]byte(frame(`{"id":[1],"method":"m","params":{"items":"x"}}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := startClient("fuzz", io.Discard, bytes.NewReader(data))
		defer c.stop()
		var raw json.RawMessage
		err := c.call(t.Context(), "textDocument/definition", nil, &raw)
		if err == nil {
			_, _ = parseLocations(raw)
		}
		<-c.ended
	})
}
