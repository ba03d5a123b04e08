//go:build !linux

package retain

import (
	"errors"
	"os"
)

// openUnnamedFile: unnamed files (O_TMPFILE) are Linux's; elsewhere every
// retain takes the temporary-name path.
func openUnnamedFile(int) (int, error) { return -1, errors.ErrUnsupported }

func linkByDescriptor(int, int, string) error { return errors.ErrUnsupported }

func linkUnnamed(*os.File, *unnamedCalls, string, []byte) (fileID, error) {
	return fileID{}, &noUnnamedError{op: "open an unnamed file", err: errors.ErrUnsupported}
}
