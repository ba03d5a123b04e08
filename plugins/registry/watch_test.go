package registry

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Watch follows the directory from before it exists: a new file offers
// its tool, a broken one keeps the previous set in service and is
// reported, a removed one takes its tool away.
func TestWatchReloads(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "config", "hpatch-router", "tools")
	loads := make(chan string, 16)
	r := Open(dir, LoadOptions{}, slog.New(slog.DiscardHandler), func(outcome string, _ []Problem) { loads <- outcome })
	if <-loads != "ok" || r.Current().Len() != 0 {
		t.Fatal("a missing directory is not an empty set")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done, err := r.Watch(ctx, 20*time.Millisecond)
	must(t, err)
	t.Cleanup(func() { cancel(); <-done })
	// wait for the outcome of the load a change causes; a generous bound
	// only so a broken watcher fails instead of hanging.
	wait := func(want string, change func()) {
		t.Helper()
		change()
		for {
			select {
			case got := <-loads:
				if got == want {
					return
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("no %s load after the change", want)
			}
		}
	}
	file := filepath.Join(dir, "a.toml")
	good := "[[tool]]\nname = \"jqx\"\ndescription = \"d\"\nrun = [\"jq\"]\n"
	wait("ok", func() {
		// Created after Watch started, parent and all.
		must(t, os.MkdirAll(dir, 0o700))
		must(t, os.WriteFile(file, []byte(good), 0o600))
	})
	for r.Current().Lookup("jqx") == nil {
		wait("ok", func() {})
	}
	wait("invalid", func() { must(t, os.WriteFile(file, []byte(good+"oops\n"), 0o600)) })
	st := r.Status()
	if r.Current().Lookup("jqx") == nil || len(st.Problems) != 1 || st.Invalid == 0 {
		t.Fatalf("after a broken file: tool %v, status %+v", r.Current().Lookup("jqx"), st)
	}
	wait("ok", func() { must(t, os.Remove(file)) })
	if r.Current().Len() != 0 || len(r.Status().Problems) != 0 {
		t.Fatalf("after removal: %d tools", r.Current().Len())
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
