// Package access decides who may use the router. It owns three rules (and
// the owner lookup one of them needs, asked the other way round), and
// serve wires them in front of every route (the /v1 proxy, /metrics,
// /healthz and the dashboard):
//
//   - Only the router's own user. On Linux, the owner of the client end of
//     each TCP connection is asked from the kernel once per connection
//     (sock_diag netlink, an exact-match lookup of the client socket by its
//     address pair; /proc/net/tcp and tcp6 when netlink is unavailable)
//     and cached on the connection. A connection whose client socket
//     belongs to another uid, or whose client socket cannot be found
//     although it is local, gets 403 in the OpenAI error shape before
//     anything is read, forwarded or created. Nothing is configured: the
//     owner is the router's effective uid. Other systems have no such
//     lookup; there, loopback peers are not told apart.
//   - The reverse question, for doctor (ServerOwner): which user owns the
//     server end of a connection this process dialled, so a client can
//     tell that the process listening at the router's address is its
//     user's and not another user's who took the port first.
//   - Loopback Host names only (DNS rebinding): a request whose Host is not
//     localhost or a loopback address gets 403, so a web page that rebinds
//     its own name to 127.0.0.1 cannot reach any route.
//   - A loopback listener (CheckListen): a listener that accepts other
//     hosts' connections is refused unless remote clients are explicitly
//     allowed. Remote peers cannot be identified: with AllowRemote, a
//     connection whose client socket is not on this host is admitted, and
//     any IP literal (plus the names given with AllowHosts) is accepted as
//     Host.
package access
