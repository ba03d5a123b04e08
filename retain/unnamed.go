package retain

import (
	"errors"
	"fmt"
	"os"
)

// A retained script is written as an unnamed file in the verified
// scripts directory and linked in under its artifact id (linkUnnamed, on
// Linux), or, where the file system has no unnamed files, written under a
// temporary name and hard-linked (createExclusive). Both give the same
// guarantees: the content is complete when the name appears, and an
// existing name is never replaced. The unnamed way costs five system
// calls where the other costs seven, and leaves no temporary name behind
// to remove, even when the router dies mid-write.

// noUnnamedError says the file system or kernel refused an unnamed file;
// the caller falls back to createExclusive.
type noUnnamedError struct {
	op  string
	err error
}

func (e *noUnnamedError) Error() string { return fmt.Sprintf("%s: %v", e.op, e.err) }
func (e *noUnnamedError) Unwrap() error { return e.err }

// unnamedCalls are the system calls of unnamed files that tests replace:
// open opens one in a directory (openUnnamedFile), linkFD links one in by
// its descriptor (linkByDescriptor). noLinkFD records that the kernel
// refused linkFD, so the store links through /proc from then on.
type unnamedCalls struct {
	open     func(dirfd int) (int, error)
	linkFD   func(fd, dirfd int, name string) error
	noLinkFD bool
}

// fileID identifies a file by device and inode, as os.SameFile does on
// Unix; the unnamed way takes it from the descriptor it wrote.
type fileID struct{ dev, ino uint64 }

// createLocked creates artifact name in ts's scripts directory with data
// and returns the new file's identity: unnamed when ts's file system
// allows it, else through a temporary name. s.mu must be held.
func (s *Store) createLocked(ts *threadStore, name string, data []byte) (fileID, error) {
	if !ts.noUnnamed {
		id, err := s.linkUnnamedLocked(ts, name, data)
		var refused *noUnnamedError
		if !errors.As(err, &refused) {
			return id, err
		}
		s.log.Debug("no unnamed files here; retaining through temporary names", "thread", ts.thread, "err", err)
		ts.noUnnamed = true
	}
	fi, err := createExclusive(ts.scripts, name, data)
	if err != nil {
		return fileID{}, err
	}
	return idOf(fi), nil
}

// linkUnnamedLocked is linkUnnamed in ts's scripts directory. The
// directory descriptor is opened as "." through ts.scripts, the Root the
// store verified and rechecks before every operation, so it is that very
// directory and not whatever a path names now; the link name is an
// artifact id ident.Artifact accepted, one component with no separator,
// resolved by the kernel in that directory alone (linkat never follows a
// final link and fails on any existing entry). Nothing leaves the
// confinement the Roots give. The descriptor stays open with ts's Roots
// and closes with them. s.mu must be held.
func (s *Store) linkUnnamedLocked(ts *threadStore, name string, data []byte) (fileID, error) {
	if ts.scriptsFile == nil {
		f, err := ts.scripts.Open(".")
		if err != nil {
			return fileID{}, err
		}
		ts.scriptsFile = f
	}
	return linkUnnamed(ts.scriptsFile, &s.unnamed, name, data)
}

// sameFile reports whether fi is the file id identifies.
func sameFile(fi os.FileInfo, id fileID) bool { return idOf(fi) == id }
