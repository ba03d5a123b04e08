package access

import (
	"errors"
	"net"
	"net/netip"
)

// owner is what the kernel says about the client end of one TCP
// connection, looked up by the client's address pair.
type owner struct {
	// local is true when the client socket is on this host (in this
	// network namespace) and still held by a process; uid is then its
	// owner.
	local bool
	uid   uint32
}

// lookupFunc finds the client socket whose local end is client and whose
// remote end is server. A client socket that is not found (a remote peer,
// or a client that already closed its socket) is owner{local: false} with
// a nil error.
type lookupFunc func(client, server netip.AddrPort) (owner, error)

// ErrNoLookup is returned where the system offers no way to find a
// socket's owner (not Linux).
var ErrNoLookup = errors.New("this system cannot tell which user owns a connection")

// unmap turns an IPv4-mapped IPv6 address pair (a dual-stack listener's
// view of an IPv4 client) into plain IPv4, so a lookup finds the client's
// IPv4 socket.
func unmap(ap netip.AddrPort) netip.AddrPort {
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
}

// ServerOwner is the user of the server end of c, a TCP connection this
// process dialled to an address on this host and the server accepted (an
// answer came back; before that the kernel holds the server end for no
// process): the listener's owner. Another user can listen on a router's
// address while the router is down, and Codex would send them its
// credentials; doctor asks this. known is false when the server end is
// not held by a process (closed already, or not on this host); the error
// is ErrNoLookup where the system cannot tell.
func ServerOwner(c net.Conn) (uid int, known bool, err error) {
	local, lok := c.LocalAddr().(*net.TCPAddr)
	remote, rok := c.RemoteAddr().(*net.TCPAddr)
	if !lok || !rok {
		return 0, false, errors.New("not a TCP connection")
	}
	// The accepted socket's own address pair is ours reversed.
	o, err := systemLookup(unmap(remote.AddrPort()), unmap(local.AddrPort()))
	if err != nil {
		return 0, false, err
	}
	return int(o.uid), o.local, nil
}
