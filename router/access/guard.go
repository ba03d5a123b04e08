package access

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync"

	"hpatch-router/router"
)

// Error codes of the 403 answers (type "permission_error"). Like the
// router's own codes they never change meaning once published.
const (
	// CodePeerNotOwner: the connection's client socket belongs to another
	// user.
	CodePeerNotOwner = "peer_not_owner"
	// CodePeerUnknown: the connection is local but its owner could not be
	// found (the client closed its socket, or the lookup failed).
	CodePeerUnknown = "peer_unknown"
	// CodePeerRemote: the connection comes from another host and remote
	// clients are not allowed.
	CodePeerRemote = "peer_remote"
	// CodeHostNotAllowed: the Host header is not a loopback name or address
	// (DNS rebinding).
	CodeHostNotAllowed = "host_not_allowed"
)

// Guard admits only requests from the router's own user, on connections
// it has identified, with a loopback Host. Build it with New; set
// http.Server.ConnContext to its ConnContext and wrap the server's handler
// with Wrap. It is safe for concurrent use.
type Guard struct {
	uid         uint32
	allowRemote bool
	allowHosts  map[string]bool
	lookup      lookupFunc
	log         *slog.Logger
}

// Option configures a Guard.
type Option func(*Guard)

// AllowRemote admits connections whose client socket is not on this host
// (their user cannot be identified) and any IP literal as Host. Local
// connections are still checked.
func AllowRemote(on bool) Option { return func(g *Guard) { g.allowRemote = on } }

// AllowHosts adds Host names accepted besides localhost and loopback
// addresses (e.g. the host name a remote --listen was given as). Only
// meaningful with AllowRemote: a name is what DNS rebinding forges.
func AllowHosts(names ...string) Option {
	return func(g *Guard) {
		for _, n := range names {
			g.allowHosts[normalHost(n)] = true
		}
	}
}

// Logger sets the logger for refused connections (default slog.Default()).
func Logger(l *slog.Logger) Option { return func(g *Guard) { g.log = l } }

// withLookup replaces the kernel lookup (tests).
func withLookup(f lookupFunc) Option { return func(g *Guard) { g.lookup = f } }

// New builds a Guard for the current process's effective uid.
func New(opts ...Option) *Guard {
	g := &Guard{uid: uint32(os.Geteuid()), allowHosts: map[string]bool{}, lookup: systemLookup, log: slog.Default()}
	for _, o := range opts {
		o(g)
	}
	return g
}

// connPeer is the verdict on one connection, decided on its first request
// and cached for the rest.
type connPeer struct {
	client, server netip.AddrPort
	once           sync.Once
	refusal        *router.Error // nil: admitted
}

type connKey struct{}

// ConnContext records the connection's address pair; use it as
// http.Server.ConnContext. The owner lookup runs once, on the connection's
// first request, in the connection's own goroutine (the accept loop never
// waits on it).
func (g *Guard) ConnContext(ctx context.Context, c net.Conn) context.Context {
	p := &connPeer{}
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		p.client = a.AddrPort()
	}
	if a, ok := c.LocalAddr().(*net.TCPAddr); ok {
		p.server = a.AddrPort()
	}
	return context.WithValue(ctx, connKey{}, p)
}

// Wrap admits a request to next only when its connection's client is the
// router's own user and its Host is allowed; anything else gets 403 in the
// OpenAI error shape and next never sees it.
func (g *Guard) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if e := g.check(r); e != nil {
			if e.Code != CodeHostNotAllowed {
				// Every later request on this connection is refused too.
				w.Header().Set("Connection", "close")
			}
			e.Respond(w)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (g *Guard) check(r *http.Request) *router.Error {
	p, _ := r.Context().Value(connKey{}).(*connPeer)
	if p == nil {
		return refuse(CodePeerUnknown, "the connection was not identified (the server lacks the access ConnContext); refusing every request")
	}
	p.once.Do(func() { p.refusal = g.admit(p.client, p.server) })
	if p.refusal != nil {
		return p.refusal
	}
	if !g.hostAllowed(r.Host) {
		return refuse(CodeHostNotAllowed, fmt.Sprintf("Host %q is not a loopback name or address; open the router as http://127.0.0.1:PORT (or [::1], localhost)", r.Host))
	}
	return nil
}

// admit decides on one connection from the kernel's answer.
func (g *Guard) admit(client, server netip.AddrPort) *router.Error {
	if !client.IsValid() || !server.IsValid() {
		return refuse(CodePeerUnknown, "the connection is not TCP; cannot tell which user opened it")
	}
	loopback := unmap(client).Addr().IsLoopback()
	o, err := g.lookup(client, server)
	switch {
	case errors.Is(err, ErrNoLookup) && (loopback || g.allowRemote):
		return nil // documented: no owner check without a kernel lookup
	case err != nil:
		g.log.Warn("refused a connection whose owner could not be looked up", "client", client, "err", err)
		return refuse(CodePeerUnknown, "cannot tell which user opened this connection: "+err.Error())
	case o.local && o.uid == g.uid:
		return nil
	case o.local:
		g.log.Warn("refused a connection from another user", "uid", o.uid, "client", client)
		return refuse(CodePeerNotOwner, fmt.Sprintf("this router serves only its own user (uid %d); the connection belongs to uid %d"+
			"; run your own router on another port (hpatch-router serve --listen 127.0.0.1:PORT) and point Codex at it (hpatch-router codex-config --listen 127.0.0.1:PORT)", g.uid, o.uid))
	case loopback:
		g.log.Warn("refused a loopback connection whose client socket is gone", "client", client)
		return refuse(CodePeerUnknown, "cannot tell which user opened this connection (its client socket is gone); the router serves only its own user")
	case g.allowRemote:
		return nil
	}
	g.log.Warn("refused a remote connection", "client", client)
	return refuse(CodePeerRemote, "connections from other hosts are not accepted; the router serves only its own user on this machine")
}

func refuse(code, msg string) *router.Error {
	return &router.Error{Status: http.StatusForbidden, Type: "permission_error", Code: code, Message: msg}
}

// hostAllowed accepts an absent Host (HTTP/1.0), localhost and loopback
// addresses; with AllowRemote also any IP literal and the AllowHosts names.
// A name that merely resolves to loopback is refused: that is what a
// rebinding page's own name does.
func (g *Guard) hostAllowed(hostport string) bool {
	host := normalHost(hostport)
	if host == "" || host == "localhost" {
		return true
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.Unmap().IsLoopback() || g.allowRemote
	}
	return g.allowRemote && g.allowHosts[host]
}

// normalHost strips the port, IPv6 brackets, a trailing dot and case.
func normalHost(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	return strings.ToLower(host)
}
