//go:build linux

package retain

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestUnnamedRefusalFallsBack: an unnamed open refused the way a file
// system or kernel without O_TMPFILE refuses it makes the store retain
// through a temporary name (and remember that for the thread); any other
// failure is the retain's error, with nothing written and no fallback.
func TestUnnamedRefusalFallsBack(t *testing.T) {
	for _, c := range []struct {
		err      unix.Errno
		fallback bool
	}{
		{unix.EOPNOTSUPP, true}, {unix.EISDIR, true}, {unix.EINVAL, true}, {unix.ENOENT, true}, {unix.ENOSYS, true},
		{unix.EACCES, false}, {unix.ENOSPC, false}, {unix.EMFILE, false}, {unix.EDQUOT, false},
	} {
		t.Run(c.err.Error(), func(t *testing.T) {
			e := newEnv(t, "T1")
			calls := 0
			e.store.unnamed.open = func(int) (int, error) { calls++; return -1, c.err }
			_, err := e.retain("T1", "call_1", py)
			_, statErr := os.Lstat(filepath.Join(e.scriptsDir("T1"), "call_1"))
			if c.fallback {
				if err != nil || statErr != nil {
					t.Fatalf("retain after %v: %v (artifact: %v); want the temporary-name way", c.err, err, statErr)
				}
				must(t, retainAndCheck(e, "call_2", py))
				if calls != 1 {
					t.Fatalf("unnamed open tried %d times in a thread that refused it, want once", calls)
				}
				return
			}
			if !errors.Is(err, c.err) || statErr == nil {
				t.Fatalf("retain after %v: %v (artifact: %v); want that error and nothing written", c.err, err, statErr)
			}
			if ents, _ := os.ReadDir(e.scriptsDir("T1")); len(ents) != 0 {
				t.Fatalf("scripts/ holds %d entries after a failed retain", len(ents))
			}
		})
	}
}

// TestUnnamedWriteFailureNamesNothing: when writing the unnamed file fails,
// no name appears, even where a link would succeed (the descriptor here is
// a read-only regular file on the same file system, so linking it in
// would work): a partial script is never exposed.
func TestUnnamedWriteFailureNamesNothing(t *testing.T) {
	e := newEnv(t, "T1")
	elsewhere := filepath.Join(e.base, "elsewhere")
	must(t, os.WriteFile(elsewhere, []byte("not the script\n"), 0o600))
	e.store.unnamed.open = func(int) (int, error) { return unix.Open(elsewhere, unix.O_RDONLY|unix.O_CLOEXEC, 0) }
	if _, err := e.retain("T1", "call_1", py); !errors.Is(err, unix.EBADF) {
		t.Fatalf("retain with a failing write: %v, want EBADF", err)
	}
	if ents, _ := os.ReadDir(e.scriptsDir("T1")); len(ents) != 0 {
		t.Fatalf("scripts/ holds %d entries after a failed write", len(ents))
	}
}

// TestLinkByDescriptorRefusal: a kernel that refuses to link a file by its
// descriptor (ENOENT) is asked once per store; the store links through
// /proc from then on. Any other failure of that link is the retain's
// error, with nothing written.
func TestLinkByDescriptorRefusal(t *testing.T) {
	for _, c := range []struct {
		err     unix.Errno
		refused bool
	}{{unix.ENOENT, true}, {unix.EACCES, false}, {unix.EPERM, false}} {
		t.Run(c.err.Error(), func(t *testing.T) {
			e := newEnv(t, "T1", "T2")
			calls := 0
			e.store.unnamed.linkFD = func(int, int, string) error { calls++; return c.err }
			_, err := e.retain("T1", "call_1", py)
			if !c.refused {
				if !errors.Is(err, c.err) {
					t.Fatalf("retain after the link failed with %v: %v, want that error", c.err, err)
				}
				if ents, _ := os.ReadDir(e.scriptsDir("T1")); len(ents) != 0 {
					t.Fatalf("scripts/ holds %d entries after a failed link", len(ents))
				}
				return
			}
			must(t, err)
			must(t, retainAndCheck(e, "call_2", py))
			if _, err := e.retain("T2", "call_1", py); err != nil {
				t.Fatal(err)
			}
			if calls != 1 || e.store.threads["T1"].noUnnamed {
				t.Fatalf("linked by descriptor %d times (want once per store); unnamed files given up: %v", calls, e.store.threads["T1"].noUnnamed)
			}
		})
	}
}
