//go:build linux

package retain

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// TestRetainThroughSpare: after a retain in a thread the store kept open,
// the thread gets a spare file, and the next retain becomes that file,
// with exactly the script, private and single-linked, with no other name
// in scripts/; a name that exists is refused through a spare as without
// one, and expiry removes the file.
func TestRetainThroughSpare(t *testing.T) {
	e := newEnv(t, "T1")
	_, err := e.retain("T1", "call_0", py) // opens the thread
	must(t, err)
	e.store.spareWork.Wait()
	if e.store.threads["T1"].spare != nil {
		t.Fatal("a spare was made for a thread that was not open yet")
	}
	_, err = e.retain("T1", "call_1", py)
	must(t, err)
	e.store.spareWork.Wait()
	sp := e.store.threads["T1"].spare
	if sp == nil {
		t.Fatal("no spare file made after a retain")
	}
	spareInfo, err := sp.file.Stat()
	must(t, err)
	const second = "#!/usr/bin/env python3\nprint('second')\n"
	_, err = e.retain("T1", "call_2", second)
	must(t, err)
	p := filepath.Join(e.scriptsDir("T1"), "call_2")
	fi, err := os.Lstat(p)
	must(t, err)
	if !os.SameFile(fi, spareInfo) {
		t.Fatal("the retain did not use the spare file")
	}
	if got, err := os.ReadFile(p); err != nil || string(got) != second {
		t.Fatalf("content %q (%v), want %q", got, err, second)
	}
	if fi.Mode() != 0o600 || linkCount(fi) != 1 {
		t.Fatalf("mode %v, %d links; want -rw------- and one link", fi.Mode(), linkCount(fi))
	}
	if got, err := e.resolve("T1", "@shell/call_2"); err != nil || got != second {
		t.Fatalf("resolve: %q %v", got, err)
	}
	e.store.spareWork.Wait()
	_, err = e.retain("T1", "call_2", "print('replaced')\n")
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("retaining an existing name through a spare: %v, want fs.ErrExist", err)
	}
	if got, _ := os.ReadFile(p); string(got) != second {
		t.Fatalf("an existing script was changed to %q", got)
	}
	ents, err := os.ReadDir(e.scriptsDir("T1"))
	must(t, err)
	var names []string
	for _, de := range ents {
		names = append(names, de.Name())
	}
	if !slices.Equal(names, []string{"call_0", "call_1", "call_2"}) {
		t.Fatalf("scripts/ holds %q, want only the two scripts", names)
	}
	e.clock.fire()
	if _, err := os.Lstat(p); !os.IsNotExist(err) {
		t.Fatalf("expiry left the script made from a spare: %v", err)
	}
}

// TestNoSpareWhileThreadsOutnumberTheOpenSet: when more threads are in use
// than stay open, each falls out before its next retain, so a spare made
// for it would be closed unused; none is made.
func TestNoSpareWhileThreadsOutnumberTheOpenSet(t *testing.T) {
	var ids []string
	for i := range maxOpenThreads + 1 {
		ids = append(ids, "rr-"+strconv.Itoa(i))
	}
	e := newEnv(t, ids...)
	for round := range 3 {
		for _, th := range ids {
			_, err := e.retain(th, "call_"+strconv.Itoa(round), py)
			must(t, err)
		}
	}
	e.store.spareWork.Wait()
	for _, th := range ids {
		if e.store.threads[th].spare != nil {
			t.Fatalf("%s got a spare while the threads in use outnumber the open set", th)
		}
	}
}
