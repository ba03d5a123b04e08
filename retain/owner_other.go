//go:build !unix

package retain

import (
	"io/fs"
	"os"
)

const openReadFlags = os.O_RDONLY

// checkOwner cannot check ownership on this platform; the store runs on
// Unix only, and this keeps the package compiling elsewhere.
func checkOwner(fs.FileInfo) error { return nil }

func linkCount(fs.FileInfo) uint64 { return 1 }
