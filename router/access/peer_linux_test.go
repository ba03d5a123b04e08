package access

import (
	"net"
	"net/netip"
	"os"
	"testing"
)

// loopbackPair returns the two ends of a TCP connection on network
// ("tcp4", "tcp6") and address; the client end is first.
func loopbackPair(t testing.TB, network, listen, dial string) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen(network, listen)
	if err != nil {
		t.Skipf("cannot listen on %s %s: %v", network, listen, err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	client, err = net.Dial("tcp", net.JoinHostPort(dial, port))
	if err != nil {
		t.Fatal(err)
	}
	server, err = ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

// serverView is the address pair as the accepting side sees it.
func serverView(server net.Conn) (client, srv netip.AddrPort) {
	return server.RemoteAddr().(*net.TCPAddr).AddrPort(), server.LocalAddr().(*net.TCPAddr).AddrPort()
}

// TestLookupsFindTheClientSocket checks both kernel interfaces on IPv4,
// IPv6 and an IPv4 client of a dual-stack listener (the server sees
// ::ffff:127.0.0.1), and that a closed client socket is not found.
func TestLookupsFindTheClientSocket(t *testing.T) {
	cases := []struct{ name, network, listen, dial string }{
		{"ipv4", "tcp4", "127.0.0.1:0", "127.0.0.1"},
		{"ipv6", "tcp6", "[::1]:0", "::1"},
		{"ipv4-mapped", "tcp", "[::]:0", "127.0.0.1"},
	}
	lookups := map[string]lookupFunc{"netlink": netlinkLookup, "proc": procLookup, "system": systemLookup}
	for _, c := range cases {
		for lname, lookup := range lookups {
			t.Run(c.name+"/"+lname, func(t *testing.T) {
				client, server := loopbackPair(t, c.network, c.listen, c.dial)
				cl, srv := serverView(server)
				if c.name == "ipv4-mapped" && !cl.Addr().Is4In6() {
					t.Logf("the dual-stack listener saw %v (not mapped)", cl)
				}
				o, err := lookup(cl, srv)
				if err != nil {
					t.Fatal(err)
				}
				if !o.local || o.uid != uint32(os.Geteuid()) {
					t.Fatalf("owner %+v, want local uid %d", o, os.Geteuid())
				}
				// The server's own socket is not the client's.
				if o, _ := lookup(srv, cl); o.local && o.uid != uint32(os.Geteuid()) {
					t.Fatalf("reverse pair %+v", o)
				}
				client.Close()
				if o, err := lookup(cl, srv); err != nil || o.local {
					t.Fatalf("after the client closed: %+v %v", o, err)
				}
			})
		}
	}
}
