//go:build !unix

package workspace

import "io/fs"

// metaOf is what a rewrite must keep of the file fi describes. Without
// device and inode numbers a file is known only by its name here.
func metaOf(fi fs.FileInfo) fileMeta {
	return fileMeta{mode: fi.Mode() & keptMode, links: 1, uid: -1, gid: -1}
}
