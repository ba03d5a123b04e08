package retain

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"hpatch-router/hpatch"
)

// Reconcile makes the scripts on disk the versions the history gives and
// refuses, with the reason, the ones no source gives.
func TestReconcile(t *testing.T) {
	now := time.Now()
	report := func(t *testing.T, base, patch string) string {
		p, err := ParsePatch(patch)
		must(t, err)
		edits, err := applyPatch(p, map[string][]byte{"call_r": []byte(base)})
		must(t, err)
		return hpatch.FormatReport(edits)
	}
	for _, tc := range []struct {
		name    string
		disk    string // call_r on disk before ("" none)
		history func(t *testing.T) []Committed
		want    string // call_r's content after, or the refusal's text
		unknown bool
	}{
		{"a retention and an edit nothing wrote", "", func(t *testing.T) []Committed {
			h := restoreHistory(t, now)[:3]
			h[2].Sum, h[2].Report = "", report(t, stageBody, h[2].Patch)
			return h
		}, stageE1, false},
		{"an older version on disk is replaced", stageBody, func(t *testing.T) []Committed {
			return restoreHistory(t, now)
		}, stageE2, false},
		{"an edit whose report is not what it writes", "", func(t *testing.T) []Committed {
			h := restoreHistory(t, now)[:3]
			h[2].Sum, h[2].Report = "", "@shell/call_r\n2:0000 something else\n"
			return h
		}, "no longer writes what its report said", true},
		{"an edit of a script the history does not retain", stageBody, func(t *testing.T) []Committed {
			return restoreHistory(t, now)[2:3]
		}, "no longer hold @shell/call_r as it was retained", true},
		{"a journaled body that does not match its checksum", "", func(t *testing.T) []Committed {
			h := restoreHistory(t, now)[:1]
			h[0].Sum = RetainSum("call_r", "#!python3\nprint('other')\n")
			return h
		}, "does not match its checksum", true},
		{"an edit journaled without the versions it wrote", "", func(t *testing.T) []Committed {
			h := restoreHistory(t, now)[:3]
			h[2].Sum = ""
			return h
		}, "was not known when it was journaled", true},
		{"a rerun retains the body it ran", "", func(t *testing.T) []Committed {
			h := restoreHistory(t, now)[1:2]
			return append(h, Committed{Call: "call_r", At: now, Retain: "call_r", Content: "#!script=@shell/call_o"})
		}, "#!python3\nprint('other')\n", false},
		{"an expired retention", "", func(t *testing.T) []Committed {
			return restoreHistory(t, now.Add(-2*time.Hour))[:1]
		}, "has expired", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "T1")
			if tc.disk != "" {
				must(t, os.MkdirAll(e.scriptsDir("T1"), 0o700))
				must(t, os.WriteFile(e.scriptsDir("T1")+"/call_r", []byte(tc.disk), 0o600))
			}
			_, unknown := e.store.Reconcile(context.Background(), "T1", tc.history(t))
			got, err := e.resolve("T1", "@shell/call_r")
			if tc.unknown {
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(unknown["call_r"], tc.want) {
					t.Fatalf("resolve: %q, %v; unknown %q; want a refusal saying %q", got, err, unknown, tc.want)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("the refusal is not one line: %q", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("resolve: %q, %v; want %q", got, err, tc.want)
			}
			if len(unknown) != 0 {
				t.Fatalf("unknown %v", unknown)
			}
		})
	}
}

// An edit of a script whose version is unknown is refused too, and a
// later history that gives the version lifts the refusal.
func TestReconcileUnknownThenKnown(t *testing.T) {
	e := newEnv(t, "T1")
	now := time.Now()
	h := restoreHistory(t, now)
	e.store.Reconcile(context.Background(), "T1", h[2:3])
	if _, err := e.store.StageEdit(context.Background(), "T1", "call_x", cite(t, "in @shell/call_r\nadd EOF \"x\"\n", stageE1)); err == nil || !strings.Contains(err.Error(), "cannot be run as the version") {
		t.Fatalf("an edit of an unknown script: %v", err)
	}
	e.store.Reconcile(context.Background(), "T1", h)
	if got, err := e.resolve("T1", "@shell/call_r"); err != nil || got != stageE2 {
		t.Fatalf("resolve: %q, %v; want the whole history's version", got, err)
	}
}
