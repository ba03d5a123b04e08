//go:build !linux

package retain

import (
	"errors"
	"os"
)

// No spare is made on this platform: every retain creates its file
// (createExclusive).
func sparesSupported() bool { return false }

var errNoSpareLink = errors.New("spare not linkable")

func linkSpare(*spareFile, string, []byte) error { return errNoSpareLink }

func openSpare(*os.File) (*spareFile, error) { return nil, errors.ErrUnsupported }

func spareUnsupported(error) bool { return true }
