package access

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkLookup measures one owner lookup of a loopback client socket by
// each kernel interface, with a few and with many other sockets open (the
// /proc scan reads every socket of the host; sock_diag looks one up).
//
//	go test -run '^$' -bench . ./router/access
func BenchmarkLookup(b *testing.B) {
	for _, extra := range []int{0, 1000} {
		others := openConns(b, extra)
		_, server := loopbackPair(b, "tcp4", "127.0.0.1:0", "127.0.0.1")
		cl, srv := serverView(server)
		for name, lookup := range map[string]lookupFunc{"netlink": netlinkLookup, "proc": procLookup} {
			b.Run(fmt.Sprintf("%s/sockets+%d", name, 2*extra), func(b *testing.B) {
				for b.Loop() {
					if o, err := lookup(cl, srv); err != nil || !o.local {
						b.Fatalf("%+v %v", o, err)
					}
				}
			})
		}
		for _, c := range others {
			c.Close()
		}
	}
}

// openConns opens n loopback connections (2n sockets) to fill the tables.
func openConns(b *testing.B, n int) []net.Conn {
	if n == 0 {
		return nil
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	var conns []net.Conn
	for range n {
		c, err := net.Dial("tcp4", ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		s, err := ln.Accept()
		if err != nil {
			b.Fatal(err)
		}
		conns = append(conns, c, s)
	}
	return conns
}

// BenchmarkNewConnection is one request on a fresh loopback connection,
// with and without the guard: the difference is what identifying a
// connection costs end to end.
func BenchmarkNewConnection(b *testing.B) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	for _, guarded := range []bool{false, true} {
		b.Run(map[bool]string{false: "bare", true: "guarded"}[guarded], func(b *testing.B) {
			srv := httptest.NewUnstartedServer(ok)
			if guarded {
				g := New(Logger(slog.New(slog.DiscardHandler)))
				srv.Config.Handler, srv.Config.ConnContext = g.Wrap(ok), g.ConnContext
			}
			srv.Start()
			defer srv.Close()
			client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			for b.Loop() {
				resp, err := client.Get(srv.URL)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatal(resp.Status)
				}
			}
		})
	}
}
