package retain

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hpatch-router/hpatch"
)

// history of a script retained at t0 and edited twice, as the router
// journals it.
func restoreHistory(t *testing.T, t0 time.Time) []Committed {
	return []Committed{
		{Call: "call_r", At: t0, Retain: "call_r", Content: stageBody},
		{Call: "call_o", At: t0, Retain: "call_o", Content: "#!python3\nprint('other')\n"},
		{Call: "call_e1", At: t0.Add(time.Minute), Patch: cite(t, "in @shell/call_r\ntype {2} \"print('two')\"\n", stageBody),
			Sum: editsSum([]hpatch.Edit{{ID: "call_r", New: []byte(stageE1)}})},
		{Call: "call_e2", At: t0.Add(2 * time.Minute), Patch: cite(t, "in @shell/call_r\nadd EOF \"print('three')\"\n", stageE1),
			Sum: editsSum([]hpatch.Edit{{ID: "call_r", New: []byte(stageE2)}})},
	}
}

// A restarted store puts back, from the journaled history, every script
// whose hour has not passed: original body plus the edits in order, with
// the rest of its hour; an expired one stays gone.
func TestRestoreAfterRestart(t *testing.T) {
	e := newEnv(t, "T1")
	now := time.Unix(10000, 0)
	e.store.now = func() time.Time { return now }
	hist := restoreHistory(t, now.Add(-40*time.Minute))
	hist[1].At = now.Add(-2 * time.Hour) // call_o's hour has passed
	if n := e.store.Restore(context.Background(), "T1", hist); n != 1 {
		t.Fatalf("restored %d scripts, want 1", n)
	}
	if got := e.read("T1", "call_r"); got != stageE2 {
		t.Fatalf("restored %q, want %q", got, stageE2)
	}
	if _, err := os.Lstat(filepath.Join(e.scriptsDir("T1"), "call_o")); err == nil {
		t.Fatal("a script whose hour has passed was restored")
	}
	if ex := e.clock.expiries(); len(ex) != 1 || ex[0].d != 20*time.Minute {
		t.Fatalf("expiry timers %+v, want one for the 20 minutes left", ex)
	}
	// Restoring again changes nothing: the store owns it now.
	if n := e.store.Restore(context.Background(), "T1", hist); n != 0 || e.clock.live() != 1 {
		t.Fatalf("a second restore wrote %d, %d timers", n, e.clock.live())
	}
	e.clock.fire()
	if _, err := os.Lstat(filepath.Join(e.scriptsDir("T1"), "call_r")); err == nil {
		t.Fatal("the restored script did not expire")
	}
}

// After a kill -9 the scripts are still on disk with no owner: a restore
// owns those the journal describes (so they expire on time), removes the
// expired ones, and leaves alone what does not match the journal.
func TestRestoreAdoptsWhatAKillLeft(t *testing.T) {
	e := newEnv(t, "T1")
	now := time.Unix(10000, 0)
	e.store.now = func() time.Time { return now }
	hist := restoreHistory(t, now.Add(-30*time.Minute))
	hist = append(hist, Committed{Call: "call_x", At: now.Add(-time.Minute), Retain: "call_x", Content: "#!python3\nprint('x')\n"})
	hist[1].At = now.Add(-time.Hour)
	scripts := e.scriptsDir("T1")
	must(t, os.WriteFile(filepath.Join(scripts, "call_r"), []byte(stageE2), 0o600))
	must(t, os.WriteFile(filepath.Join(scripts, "call_o"), []byte("#!python3\nprint('other')\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(scripts, "call_x"), []byte("someone else's"), 0o600))
	if n := e.store.Restore(context.Background(), "T1", hist); n != 0 {
		t.Fatalf("wrote %d scripts; every one was on disk", n)
	}
	if _, err := os.Lstat(filepath.Join(scripts, "call_o")); err == nil {
		t.Fatal("an expired script a kill left behind was not removed")
	}
	if got := e.read("T1", "call_x"); got != "someone else's" {
		t.Fatalf("a file that is not the journal's version was changed: %q", got)
	}
	if ex := e.clock.expiries(); len(ex) != 1 || ex[0].d != 30*time.Minute {
		t.Fatalf("expiry timers %+v, want call_r's 30 minutes", ex)
	}
	e.clock.fire()
	if _, err := os.Lstat(filepath.Join(scripts, "call_r")); err == nil {
		t.Fatal("the adopted script did not expire")
	}
}

// An edit the history cannot apply (an earlier line was lost) leaves the
// scripts it names out rather than restoring a wrong version, and a rerun
// of them is refused with the reason.
func TestRestoreSkipsWhatItCannotReplay(t *testing.T) {
	e := newEnv(t, "T1")
	now := time.Now()
	hist := restoreHistory(t, now.Add(-time.Minute))
	hist = append(hist[:2], hist[3]) // call_e1 lost: call_e2 no longer applies
	if n := e.store.Restore(context.Background(), "T1", hist); n != 1 {
		t.Fatalf("restored %d, want only call_o", n)
	}
	if _, err := e.resolve("T1", "@shell/call_r"); err == nil || !strings.Contains(err.Error(), "cannot be run as the version this conversation last showed") {
		t.Fatalf("call_r: %v, want it refused", err)
	}
}
