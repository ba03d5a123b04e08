//go:build unix

package retain

import (
	"fmt"
	"io/fs"
	"syscall"
)

// createTempFlags is what writeTemp adds to regfile.WriteNew's flags for
// a temporary script file (see writeTemp for why non-blocking).
const createTempFlags = syscall.O_NONBLOCK

// checkOwner reports an error unless fi belongs to uid, the current user
// (looked up once where a Store or an open is set up: a getuid per check
// cost two system calls a retain).
func checkOwner(fi fs.FileInfo, uid int) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("cannot read its owner")
	}
	if int(st.Uid) != uid {
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
