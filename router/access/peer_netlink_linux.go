package access

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"

	"golang.org/x/sys/unix"
)

// Layout of the sock_diag exchange (linux/inet_diag.h, linux/netlink.h).
// The request is one nlmsghdr and one inet_diag_req_v2 naming a socket by
// its exact address pair; the kernel answers with one inet_diag_msg or an
// NLMSG_ERROR (ENOENT when no such socket exists).
const (
	nlHeaderLen       = 16
	diagReqLen        = 56 // inet_diag_req_v2
	diagMsgLen        = 72 // inet_diag_msg
	sockDiagByFamily  = 20 // SOCK_DIAG_BY_FAMILY
	diagMsgUIDOffset  = 64 // inet_diag_msg.idiag_uid
	diagMsgInoOffset  = 68 // inet_diag_msg.idiag_inode
	inetDiagNoCookie  = 0xffffffff
	netlinkReplyBytes = 1024
)

// errNetlinkUnavailable means sock_diag cannot answer here (no netlink
// socket, or no TCP diag support); the /proc tables are the fallback.
var errNetlinkUnavailable = errors.New("sock_diag netlink is not available")

// netlinkLookup asks sock_diag for the one socket whose local end is
// client and remote end is server: an exact hash lookup in the kernel, so
// its cost does not grow with the number of sockets on the host. An
// IPv4 client (also one a dual-stack listener sees as IPv4-mapped) is
// looked up as AF_INET, which finds IPv4 sockets and IPv6 sockets
// connected to a mapped address alike.
func netlinkLookup(client, server netip.AddrPort) (owner, error) {
	client, server = unmap(client), unmap(server)
	if client.Addr().Is4() != server.Addr().Is4() {
		return owner{}, nil // no socket pairs an IPv4 with an IPv6 end
	}
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return owner{}, fmt.Errorf("%w: %w", errNetlinkUnavailable, err)
	}
	defer unix.Close(fd)
	// A reply is immediate; the timeout only keeps a broken kernel from
	// hanging a connection.
	tv := unix.Timeval{Sec: 1}
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return owner{}, fmt.Errorf("%w: %w", errNetlinkUnavailable, err)
	}
	const seq = 1
	if err := unix.Sendto(fd, diagRequest(client, server, seq), 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return owner{}, fmt.Errorf("%w: %w", errNetlinkUnavailable, err)
	}
	buf := make([]byte, netlinkReplyBytes)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return owner{}, fmt.Errorf("sock_diag reply: %w", err)
	}
	return parseDiagReply(buf[:n], seq)
}

// diagRequest encodes the exact-match request for the socket whose local
// end is client and remote end is server.
func diagRequest(client, server netip.AddrPort, seq uint32) []byte {
	b := make([]byte, nlHeaderLen+diagReqLen)
	ne := binary.NativeEndian
	ne.PutUint32(b[0:], uint32(len(b)))
	ne.PutUint16(b[4:], sockDiagByFamily)
	ne.PutUint16(b[6:], unix.NLM_F_REQUEST)
	ne.PutUint32(b[8:], seq)
	r := b[nlHeaderLen:]
	r[0] = unix.AF_INET6
	if client.Addr().Is4() {
		r[0] = unix.AF_INET
	}
	r[1] = unix.IPPROTO_TCP
	ne.PutUint32(r[4:], 0xffffffff) // every state; an exact lookup ignores it
	id := r[8:]
	binary.BigEndian.PutUint16(id[0:], client.Port())
	binary.BigEndian.PutUint16(id[2:], server.Port())
	copy(id[4:20], client.Addr().AsSlice())
	copy(id[20:36], server.Addr().AsSlice())
	ne.PutUint32(id[40:], inetDiagNoCookie)
	ne.PutUint32(id[44:], inetDiagNoCookie)
	return b
}

// parseDiagReply reads the kernel's answer to request seq: one
// inet_diag_msg, or an NLMSG_ERROR.
func parseDiagReply(b []byte, seq uint32) (owner, error) {
	ne := binary.NativeEndian
	if len(b) < nlHeaderLen {
		return owner{}, fmt.Errorf("sock_diag reply of %d bytes is too short", len(b))
	}
	size, typ, gotSeq := ne.Uint32(b[0:]), ne.Uint16(b[4:]), ne.Uint32(b[8:])
	if size < nlHeaderLen || int(size) > len(b) || gotSeq != seq {
		return owner{}, errors.New("sock_diag reply is malformed or answers another request")
	}
	body := b[nlHeaderLen:size]
	switch typ {
	case unix.NLMSG_ERROR:
		if len(body) < 4 {
			return owner{}, errors.New("sock_diag error reply is truncated")
		}
		errno := unix.Errno(-int32(ne.Uint32(body)))
		if errno == unix.ENOENT {
			return owner{}, nil
		}
		if errno == unix.EINVAL || errno == unix.EOPNOTSUPP || errno == unix.EPROTONOSUPPORT {
			return owner{}, fmt.Errorf("%w: %w", errNetlinkUnavailable, errno)
		}
		return owner{}, fmt.Errorf("sock_diag: %w", errno)
	case sockDiagByFamily:
		if len(body) < diagMsgLen {
			return owner{}, errors.New("sock_diag answer is truncated")
		}
		// A socket no process holds any more (closed, or a TIME_WAIT
		// remnant reported with uid 0) has inode 0: its owner is unknown.
		if ne.Uint32(body[diagMsgInoOffset:]) == 0 {
			return owner{}, nil
		}
		return owner{local: true, uid: ne.Uint32(body[diagMsgUIDOffset:])}, nil
	}
	return owner{}, fmt.Errorf("sock_diag answered with message type %d", typ)
}
