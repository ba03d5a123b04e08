package access

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
)

// maxProcNetLine bounds one line of /proc/net/tcp{,6} (real lines are
// about 150 bytes).
const maxProcNetLine = 4096

// findProcNet scans a /proc/net/tcp or /proc/net/tcp6 table for the
// socket whose local end is client and remote end is server. IPv4 pairs are
// also matched in their IPv4-mapped IPv6 form, as tcp6 lists an IPv6
// socket connected to an IPv4 address. A row without an inode (a closed
// socket or a TIME_WAIT remnant, listed with uid 0) does not count.
func findProcNet(r io.Reader, client, server netip.AddrPort) (owner, error) {
	client, server = unmap(client), unmap(server)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 512), maxProcNetLine)
	first := true
	for sc.Scan() {
		if first { // the column header
			first = false
			continue
		}
		row, err := parseProcNetRow(sc.Text())
		if err != nil {
			return owner{}, err
		}
		if unmap(row.local) == client && unmap(row.remote) == server && row.inode != 0 {
			return owner{local: true, uid: row.uid}, nil
		}
	}
	if err := sc.Err(); err != nil {
		return owner{}, fmt.Errorf("read the socket table: %w", err)
	}
	return owner{}, nil
}

// procNetRow is the part of one socket table row a lookup needs.
type procNetRow struct {
	local, remote netip.AddrPort
	uid           uint32
	inode         uint64
}

// parseProcNetRow parses one row:
//
//	sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
//	0: 0100007F:1F90 0100007F:9C4E 01 00000000:00000000 00:00000000 00000000 1000 0 4242 …
func parseProcNetRow(line string) (procNetRow, error) {
	f := strings.Fields(line)
	if len(f) < 10 {
		return procNetRow{}, fmt.Errorf("socket table row has %d fields, want at least 10", len(f))
	}
	local, err := parseProcNetAddr(f[1])
	if err != nil {
		return procNetRow{}, err
	}
	remote, err := parseProcNetAddr(f[2])
	if err != nil {
		return procNetRow{}, err
	}
	uid, err := strconv.ParseUint(f[7], 10, 32)
	if err != nil {
		return procNetRow{}, fmt.Errorf("socket table uid %q: %w", f[7], err)
	}
	inode, err := strconv.ParseUint(f[9], 10, 64)
	if err != nil {
		return procNetRow{}, fmt.Errorf("socket table inode %q: %w", f[9], err)
	}
	return procNetRow{local: local, remote: remote, uid: uint32(uid), inode: inode}, nil
}

// parseProcNetAddr parses "HEXADDR:HEXPORT". The kernel prints the address
// as 32-bit words in host byte order (8 hex digits for IPv4, 32 for IPv6)
// and the port as a plain number in hex.
func parseProcNetAddr(s string) (netip.AddrPort, error) {
	a, p, ok := strings.Cut(s, ":")
	if !ok || (len(a) != 8 && len(a) != 32) || len(p) != 4 {
		return netip.AddrPort{}, fmt.Errorf("socket table address %q is not HEXADDR:PORT", s)
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("socket table port %q: %w", p, err)
	}
	words, err := hex.DecodeString(a)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("socket table address %q: %w", a, err)
	}
	raw := make([]byte, len(words))
	for i := 0; i < len(words); i += 4 {
		binary.NativeEndian.PutUint32(raw[i:], binary.BigEndian.Uint32(words[i:]))
	}
	addr, ok := netip.AddrFromSlice(raw)
	if !ok {
		return netip.AddrPort{}, errors.New("socket table address has a bad length")
	}
	return netip.AddrPortFrom(addr, uint16(port)), nil
}
