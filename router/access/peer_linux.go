package access

import (
	"errors"
	"net/netip"
	"os"
)

// systemLookup finds a client socket's owner with sock_diag and, when
// netlink is unavailable or does not find the socket, in /proc/net/tcp and
// tcp6 (a kernel without TCP sock_diag also answers "not found", so a miss
// is confirmed before a connection is treated as remote or refused).
func systemLookup(client, server netip.AddrPort) (owner, error) {
	o, err := netlinkLookup(client, server)
	if err == nil && o.local {
		return o, nil
	}
	if err != nil && !errors.Is(err, errNetlinkUnavailable) {
		return owner{}, err
	}
	return procLookup(client, server)
}

// procLookup scans /proc/net/tcp for IPv4 pairs and /proc/net/tcp6 for
// both (an IPv6 socket connected to an IPv4-mapped address is listed there).
func procLookup(client, server netip.AddrPort) (owner, error) {
	tables := []string{"/proc/net/tcp6"}
	if unmap(client).Addr().Is4() {
		tables = []string{"/proc/net/tcp", "/proc/net/tcp6"}
	}
	for _, name := range tables {
		o, err := procTableLookup(name, client, server)
		if err != nil || o.local {
			return o, err
		}
	}
	return owner{}, nil
}

func procTableLookup(name string, client, server netip.AddrPort) (owner, error) {
	f, err := os.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		return owner{}, nil // no IPv6 (or IPv4) in this kernel: no such sockets
	}
	if err != nil {
		return owner{}, err
	}
	defer f.Close()
	return findProcNet(f, client, server)
}
