//go:build !linux

package retain

import (
	"errors"
	"os"
)

// spareFile is never made on this platform: every retain creates its file
// (createExclusive).
type spareFile struct{}

func (*spareFile) close() {}

func sparesSupported() bool { return false }

var errNoSpareLink = errors.New("spare not linkable")

func linkSpare(*spareFile, string, []byte) error { return errNoSpareLink }

func openSpare(*os.File) (*spareFile, error) { return nil, errors.ErrUnsupported }

func spareUnsupported(error) bool { return true }
