//go:build unix

package workspace

import (
	"io/fs"
	"strconv"
	"syscall"
)

// metaOf is what a rewrite must keep of the file fi describes, and which
// file it is (device and inode).
func metaOf(fi fs.FileInfo) fileMeta {
	m := fileMeta{mode: fi.Mode() & keptMode, links: 1, uid: -1, gid: -1}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		m.id = strconv.FormatUint(uint64(st.Dev), 10) + ":" + strconv.FormatUint(uint64(st.Ino), 10)
		m.links = uint64(st.Nlink)
		m.uid, m.gid = int(st.Uid), int(st.Gid)
	}
	return m
}
