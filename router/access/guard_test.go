package access

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"hpatch-router/router/access/accesstest"
)

func quiet() Option { return Logger(slog.New(slog.DiscardHandler)) }

func TestGuardAdmit(t *testing.T) {
	me := uint32(os.Geteuid())
	loop, remote := netip.MustParseAddrPort("127.0.0.1:40000"), netip.MustParseAddrPort("192.0.2.7:40000")
	mapped := netip.MustParseAddrPort("[::ffff:127.0.0.1]:40000")
	server := netip.MustParseAddrPort("127.0.0.1:8080")
	cases := []struct {
		name        string
		client      netip.AddrPort
		o           owner
		err         error
		allowRemote bool
		want        string // refusal code, "" when admitted
	}{
		{"own user", loop, owner{local: true, uid: me}, nil, false, ""},
		{"own user through a dual-stack listener", mapped, owner{local: true, uid: me}, nil, false, ""},
		{"another user", loop, owner{local: true, uid: me + 1}, nil, false, CodePeerNotOwner},
		{"another user with remote allowed", loop, owner{local: true, uid: me + 1}, nil, true, CodePeerNotOwner},
		{"loopback client socket gone", loop, owner{}, nil, false, CodePeerUnknown},
		{"loopback client socket gone, remote allowed", loop, owner{}, nil, true, CodePeerUnknown},
		{"remote peer", remote, owner{}, nil, false, CodePeerRemote},
		{"remote peer allowed", remote, owner{}, nil, true, ""},
		{"local user on a non-loopback address", remote, owner{local: true, uid: me + 1}, nil, true, CodePeerNotOwner},
		{"lookup failed", loop, owner{}, errors.New("boom"), false, CodePeerUnknown},
		{"no lookup on this system, loopback", loop, owner{}, ErrNoLookup, false, ""},
		{"no lookup on this system, remote", remote, owner{}, ErrNoLookup, false, CodePeerUnknown},
		{"not tcp", netip.AddrPort{}, owner{}, nil, false, CodePeerUnknown},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := New(quiet(), AllowRemote(c.allowRemote), withLookup(func(cl, srv netip.AddrPort) (owner, error) {
				if cl != c.client || srv != server {
					t.Errorf("lookup(%v, %v)", cl, srv)
				}
				return c.o, c.err
			}))
			e := g.admit(c.client, server)
			got := ""
			if e != nil {
				got = e.Code
				if e.Status != http.StatusForbidden || e.Type != "permission_error" {
					t.Errorf("refusal %+v", e)
				}
			}
			if got != c.want {
				t.Fatalf("admit = %q (%v), want %q", got, e, c.want)
			}
			// Another user reached this router, usually at the default
			// address their own Codex is set up for: say what to do.
			if got == CodePeerNotOwner && !strings.Contains(e.Message, "; run your own router on another port (hpatch-router serve --listen 127.0.0.1:PORT) and point Codex at it (hpatch-router codex-config --listen 127.0.0.1:PORT)") {
				t.Errorf("refusal says nothing to do: %q", e.Message)
			}
		})
	}
}

func TestGuardHost(t *testing.T) {
	local := New(quiet())
	remote := New(quiet(), AllowRemote(true), AllowHosts("Router.LAN"))
	cases := []struct {
		host          string
		local, remote bool
	}{
		{"", true, true},
		{"127.0.0.1:8080", true, true},
		{"127.9.9.9", true, true},
		{"[::1]:8080", true, true},
		{"[::ffff:127.0.0.1]:8080", true, true},
		{"localhost:8080", true, true},
		{"LOCALHOST.", true, true},
		{"rebind.evil.example", false, false},
		{"rebind.evil.example:8080", false, false},
		{"localhost.evil.example", false, false},
		{"192.168.1.5:8080", false, true},
		{"[2001:db8::1]:8080", false, true},
		{"router.lan:8080", false, true},
		{"0x7f.1", false, false},
	}
	for _, c := range cases {
		if got := local.hostAllowed(c.host); got != c.local {
			t.Errorf("loopback only: Host %q allowed = %v", c.host, got)
		}
		if got := remote.hostAllowed(c.host); got != c.remote {
			t.Errorf("remote allowed: Host %q allowed = %v", c.host, got)
		}
	}
}

// A handler wrapped without the guard's ConnContext refuses everything:
// forgetting the wiring fails closed.
func TestGuardWithoutConnContextRefuses(t *testing.T) {
	h := New(quiet()).Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Error("reached") }))
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/healthz", nil)
	req.Host = "127.0.0.1"
	h.ServeHTTP(rec, req)
	accesstest.WantRefusal(t, "no ConnContext", rec.Code, rec.Body.Bytes(), CodePeerUnknown)
}

// TestGuardOnServer runs the guard on a real listener with the kernel
// lookup: this user's requests pass, a rebinding Host is refused, and the
// owner is looked up once per connection, not per request.
func TestGuardOnServer(t *testing.T) {
	var lookups atomic.Int32
	g := New(quiet(), withLookup(func(c, s netip.AddrPort) (owner, error) {
		lookups.Add(1)
		return systemLookup(c, s)
	}))
	srv := httptest.NewUnstartedServer(g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	})))
	srv.Config.ConnContext = g.ConnContext
	srv.Start()
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
	defer client.CloseIdleConnections()
	get := func(host string) (int, []byte) {
		req, _ := http.NewRequest("GET", srv.URL+"/v1/models", nil)
		if host != "" {
			req.Host = host
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	for range 3 {
		if code, body := get(""); code != 200 || string(body) != "ok" {
			t.Fatalf("own user: %d %s", code, body)
		}
	}
	code, body := get("rebind.evil.example")
	accesstest.WantRefusal(t, "rebinding Host", code, body, CodeHostNotAllowed)
	if n := lookups.Load(); n != 1 {
		t.Fatalf("%d lookups for 4 requests on one connection, want 1", n)
	}
}

func TestCheckListen(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:8080": true, "127.0.1.1:8080": true, "[::1]:8080": true, "[::ffff:127.0.0.1]:8080": true,
		"0.0.0.0:8080": false, "[::]:8080": false, "192.168.1.5:8080": false,
	} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckListen(a); (err == nil) != ok {
			t.Errorf("%s: %v", addr, err)
		}
	}
	if err := CheckListen(&net.UnixAddr{Name: "/x", Net: "unix"}); err == nil {
		t.Error("accepted a unix socket address")
	}
}
