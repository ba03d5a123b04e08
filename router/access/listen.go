package access

import (
	"fmt"
	"net"
)

// CheckListen reports an error when addr, a bound listener's address,
// accepts connections from other hosts: their users cannot be identified,
// so such a listener needs an explicit opt-in (AllowRemote).
func CheckListen(addr net.Addr) error {
	a, ok := addr.(*net.TCPAddr)
	if !ok {
		return fmt.Errorf("%s is not a TCP address", addr)
	}
	if ip := a.AddrPort().Addr().Unmap(); !ip.IsLoopback() {
		return fmt.Errorf("%s accepts connections from other hosts, whose users cannot be identified", addr)
	}
	return nil
}
