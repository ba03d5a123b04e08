//go:build !unix

package retain

import "io/fs"

const createTempFlags = 0

// checkOwner cannot check ownership on this platform; the store runs on
// Unix only, and this keeps the package compiling elsewhere.
func checkOwner(fs.FileInfo, int) error { return nil }

func linkCount(fs.FileInfo) uint64 { return 1 }
