//go:build linux

package hsymbol

import (
	"bytes"
	"io"
	"path/filepath"
	"strconv"
	"testing"
)

// FuzzLSPFrames: whatever a server writes, the client's reader ends at the
// end of the stream, never holds a message over maxMessage and passes on
// only messages that decoded.
func FuzzLSPFrames(f *testing.F) {
	frame := func(body string) string { return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body }
	f.Add([]byte(frame(`{"jsonrpc":"2.0","id":1,"result":null}`) + frame(`{"jsonrpc":"2.0","method":"x"}`)))
	f.Add([]byte("Content-Length: 67108865\r\n\r\n{"))
	f.Add([]byte("Content-Length: -1\r\n\r\n"))
	f.Add([]byte("Content-Length: 999999\r\n\r\n{\"id\":1}"))
	f.Add([]byte(frame("\x00\xff not json") + frame(`{"id":2,"result":[`)))
	f.Add([]byte("Content-Type: x\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := newClient("fuzz", io.Discard, bytes.NewReader(data))
		defer c.stop()
		for m := range c.incoming {
			if len(m.Result)+len(m.Params) > maxMessage {
				t.Fatalf("message of %d bytes", len(m.Result)+len(m.Params))
			}
		}
		if err := <-c.readErr; err == nil {
			t.Fatal("the reader ended without an error")
		}
	})
}

// FuzzParseLocations: any answer gives clean absolute paths or an error.
func FuzzParseLocations(f *testing.F) {
	f.Add([]byte(`{"uri":"file:///a/b.go","range":{"start":{"line":1},"end":{"line":2}}}`))
	f.Add([]byte(`[{"targetUri":"file:///x/../y.ts","targetRange":{"start":{"line":0},"end":{"line":0}}}]`))
	f.Add([]byte(`[{"uri":"untitled:1"},null,{"uri":"file:rel"}]`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		locs, err := parseLocations(raw)
		if err != nil {
			return
		}
		for _, l := range locs {
			if !filepath.IsAbs(l.path) && l.path != "." || filepath.Clean(l.path) != l.path {
				t.Fatalf("location path %q", l.path)
			}
		}
	})
}
