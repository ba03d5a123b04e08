package retain

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// stageScenario stages, in order, a retention of call_r ("#!python3"
// with one print), an edit of it by call_e1 and an edit of call_e1's
// version by call_e2, all as one response would, and then settles them
// with the states given per call.
type stageScenario struct {
	name  string
	state map[string]CallState // missing: CallPending
	// want: the script on disk after settling ("" = no file), what is
	// still staged, and the calls written.
	disk    string
	staged  []string
	written []string
}

const (
	stageBody = "#!python3\nprint('one')\n"
	stageE1   = "#!python3\nprint('two')\n"
	stageE2   = "#!python3\nprint('two')\nprint('three')\n"
)

func TestSettleWritesOnlyWhatRan(t *testing.T) {
	all := func(st CallState) map[string]CallState {
		return map[string]CallState{"call_r": st, "call_e1": st, "call_e2": st}
	}
	for _, c := range []stageScenario{
		{name: "all ran", state: all(CallRan), disk: stageE2, written: []string{"call_r", "call_e1", "call_e2"}},
		{name: "all pending", state: map[string]CallState{}, staged: []string{"call_r", "call_e1", "call_e2"}},
		{name: "retention aborted drops the edits on it", state: all(CallAborted)},
		{name: "retention gone drops the edits on it", state: map[string]CallState{"call_r": CallGone, "call_e1": CallRan, "call_e2": CallRan}},
		{name: "first edit aborted drops the second", disk: stageBody, written: []string{"call_r"},
			state: map[string]CallState{"call_r": CallRan, "call_e1": CallAborted, "call_e2": CallRan}},
		{name: "second edit aborted", disk: stageE1, written: []string{"call_r", "call_e1"},
			state: map[string]CallState{"call_r": CallRan, "call_e1": CallRan, "call_e2": CallAborted}},
		{name: "second edit pending", disk: stageE1, written: []string{"call_r", "call_e1"}, staged: []string{"call_e2"},
			state: map[string]CallState{"call_r": CallRan, "call_e1": CallRan}},
		{name: "an edit that ran waits for its pending parent", disk: stageBody, written: []string{"call_r"}, staged: []string{"call_e1", "call_e2"},
			state: map[string]CallState{"call_r": CallRan, "call_e2": CallRan}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, "T1")
			ctx := context.Background()
			ref, err := e.store.Stage(ctx, "T1", "call_r", stageBody)
			must(t, err)
			if ref != "@shell/call_r" {
				t.Fatalf("ref %q", ref)
			}
			rep, err := e.store.StageEdit(ctx, "T1", "call_e1", cite(t, "in @shell/call_r\ntype {2} \"print('two')\"\n", stageBody))
			must(t, err)
			if !strings.Contains(rep, "print('two')") {
				t.Fatalf("report %q", rep)
			}
			// The second edit sees the first one's staged version.
			_, err = e.store.StageEdit(ctx, "T1", "call_e2", cite(t, "in @shell/call_r\nadd EOF \"print('three')\"\n", stageE1))
			must(t, err)
			if got, err := e.resolve("T1", "@shell/call_r"); err != nil || got != stageE2 {
				t.Fatalf("resolve before settling: %q, %v; want the newest staged version", got, err)
			}
			if _, err := os.Lstat(filepath.Join(e.scriptsDir("T1"), "call_r")); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("the script is on disk before its call ran: %v", err)
			}
			written := calls(e.store.Settle(ctx, "T1", func(id string) CallState { return c.state[id] }))
			if !slices.Equal(written, c.written) {
				t.Fatalf("written %v, want %v", written, c.written)
			}
			disk, err := os.ReadFile(filepath.Join(e.scriptsDir("T1"), "call_r"))
			if c.disk == "" && !errors.Is(err, fs.ErrNotExist) || c.disk != "" && string(disk) != c.disk {
				t.Fatalf("disk %q (%v), want %q", disk, err, c.disk)
			}
			var staged []string
			for _, id := range []string{"call_r", "call_e1", "call_e2"} {
				if e.store.StagedCall("T1", id) {
					staged = append(staged, id)
				}
			}
			if !slices.Equal(staged, c.staged) || e.store.Staged("T1") != (len(c.staged) > 0) {
				t.Fatalf("still staged %v, want %v", staged, c.staged)
			}
			want := c.disk
			if len(c.staged) > 0 {
				want = stageE2
			}
			got, err := e.resolve("T1", "@shell/call_r")
			if want == "" && err == nil || want != "" && got != want {
				t.Fatalf("resolve after settling: %q, %v; want %q", got, err, want)
			}
		})
	}
}

// A staged edit of a script on disk leaves the file alone until its call
// ran; one whose script changed on disk meanwhile is not written.
func TestStagedEditOfARetainedScript(t *testing.T) {
	e := newEnv(t, "T1")
	ctx := context.Background()
	_, err := e.retain("T1", "s", stageBody)
	must(t, err)
	patch := cite(t, "in @shell/s\ntype {2} \"print('two')\"\n", stageBody)
	_, err = e.store.StageEdit(ctx, "T1", "call_1", patch)
	must(t, err)
	if e.read("T1", "s") != stageBody {
		t.Fatal("a staged edit changed the file")
	}
	if w := e.store.Settle(ctx, "T1", func(string) CallState { return CallRan }); len(w) != 1 || e.read("T1", "s") != stageE1 {
		t.Fatalf("written %v, file %q", w, e.read("T1", "s"))
	}

	_, err = e.store.StageEdit(ctx, "T1", "call_2", cite(t, "in @shell/s\ntype {2} \"print(3)\"\n", stageE1))
	must(t, err)
	_, err = e.apply("T1", cite(t, "in @shell/s\nadd EOF \"x\"\n", stageE1)) // someone else's edit
	must(t, err)
	changed := e.read("T1", "s")
	if w := e.store.Settle(ctx, "T1", func(string) CallState { return CallRan }); len(w) != 0 {
		t.Fatalf("an edit of a script that changed since was written: %v", w)
	}
	if e.read("T1", "s") != changed || !strings.Contains(e.logs.String(), "changed since the edit was checked") {
		t.Fatalf("file %q; log:\n%s", e.read("T1", "s"), e.logs)
	}
}

// A retention is refused when the name is staged or on disk already;
// staged changes that wait longer than a script lives are dropped; a
// thread holds a bounded number of staged changes.
func TestStageBounds(t *testing.T) {
	e := newEnv(t, "T1")
	now := time.Unix(1000, 0)
	e.store.now = func() time.Time { return now }
	ctx := context.Background()
	_, err := e.retain("T1", "on_disk", stageBody)
	must(t, err)
	_, err = e.store.Stage(ctx, "T1", "staged", stageBody)
	must(t, err)
	for _, id := range []string{"on_disk", "staged"} {
		if _, err := e.store.Stage(ctx, "T1", id, stageBody); !errors.Is(err, fs.ErrExist) {
			t.Fatalf("stage over %s: %v, want fs.ErrExist", id, err)
		}
	}
	now = now.Add(DefaultTTL)
	if _, err := e.store.Stage(ctx, "T1", "later", stageBody); err != nil {
		t.Fatal(err)
	}
	if e.store.StagedCall("T1", "staged") {
		t.Fatal("a change that waited an hour is still staged")
	}
	for i := 1; i < maxStagedPerThread; i++ {
		_, err := e.store.Stage(ctx, "T1", fmt.Sprint("c", i), stageBody)
		must(t, err)
	}
	if _, err := e.store.Stage(ctx, "T1", "one_more", stageBody); err == nil || !strings.Contains(err.Error(), "waiting for their calls") {
		t.Fatalf("stage beyond the bound: %v", err)
	}
	// A retention written late keeps the hour from when it was staged.
	now = now.Add(DefaultTTL / 2)
	if w := calls(e.store.Settle(ctx, "T1", func(id string) CallState {
		if id == "later" {
			return CallRan
		}
		return CallGone
	})); !slices.Equal(w, []string{"later"}) {
		t.Fatalf("written %v", w)
	}
	if ex := e.clock.expiries(); len(ex) != 2 || ex[1].d != DefaultTTL/2 {
		t.Fatalf("expiry timers %d, the late one %v; want it to fire after %v", len(ex), ex[len(ex)-1].d, DefaultTTL/2)
	}
	if e.store.Staged("T1") {
		t.Fatal("gone changes are still staged")
	}
}

// calls lists the calls of changes written.
func calls(cs []Committed) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Call)
	}
	return out
}
