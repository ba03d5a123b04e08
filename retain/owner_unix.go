//go:build unix

package retain

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// openReadFlags opens scripts for reading without blocking on a FIFO.
const openReadFlags = os.O_RDONLY | syscall.O_NONBLOCK

// checkOwner reports an error unless fi belongs to the current user.
func checkOwner(fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("cannot read its owner")
	}
	if uid := os.Getuid(); int(st.Uid) != uid {
		return fmt.Errorf("it is owned by uid %d, not by the current user (uid %d)", st.Uid, uid)
	}
	return nil
}

// linkCount returns the number of hard links of fi, or 1 when unknown.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
