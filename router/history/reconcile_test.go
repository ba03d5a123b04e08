package history

import (
	"slices"
	"testing"
	"time"

	"hpatch-router/retain"
	"hpatch-router/router/response"
	"hpatch-router/router/threadstate"
)

// A thread whose changes a restart (or a lost staging) left unknown: the
// model was told c-1 retained a script and c-2 edited it.
const (
	retainedBody = "#!python3\nprint(1)\n"
	patchInput   = "in @shell/c-1\ntype 2:ab \"print(2)\""
	patchReport  = "@shell/c-1\n2:cd print(2)\n"
)

var (
	retainCarrier = shellCarrier("c-1", "-e python3 'print(1)'", true)
	patchCarrier  = response.PrintCarrier(patchReport)
)

// putRetainAndEdit records the carriers of c-1 and c-2 in testThread.
func putRetainAndEdit(t *testing.T, h *harness) {
	t.Helper()
	h.put(t, "c-1", retainCarrier, modelCall("c-1", response.ToolShell, retainedBody))
	h.put(t, "c-2", patchCarrier, modelCall("c-2", response.ToolHPatch, patchInput))
}

// retainAndEdit is a request that shows c-1 and c-2 with outputs out1
// and out2 (raw JSON; "" leaves the output out).
func retainAndEdit(out1, out2 string) []byte {
	items := []string{execCall("c-1", retainCarrier)}
	if out1 != "" {
		items = append(items, callOutput("c-1", out1))
	}
	items = append(items, execCall("c-2", patchCarrier))
	if out2 != "" {
		items = append(items, callOutput("c-2", out2))
	}
	return requestBody(items...)
}

// commits returns testThread's journaled changes.
func (h *harness) commits() []retain.Committed {
	var out []retain.Committed
	h.store.View(testThread, func(v threadstate.View) { out = slices.Collect(v.Commits()) })
	return out
}

func TestReconcileUnknownChangesInHistoryOrder(t *testing.T) {
	h := newHarness(t)
	// c-0's retention is journaled and the request no longer shows it
	// (compacted): it comes first.
	older := retain.Committed{Call: "c-0", At: time.Now().Add(-time.Minute), Retain: "c-0", Content: "#!sh\nls\n"}
	if err := h.store.Commit(testThread, []retain.Committed{older}); err != nil {
		t.Fatal(err)
	}
	putRetainAndEdit(t, h)
	if _, err := h.apply(t, retainAndEdit(ranJSON, ranJSON), false); err != nil {
		t.Fatal(err)
	}
	if len(h.scripts.reconciles) != 1 {
		t.Fatalf("Reconcile called %d times, want 1", len(h.scripts.reconciles))
	}
	hist := h.scripts.reconciles[0]
	if got := callsOf(hist); !slices.Equal(got, []string{"c-0", "c-1", "c-2"}) {
		t.Fatalf("Reconcile got %v, want the journal's c-0, then c-1 and c-2 as the request shows them", got)
	}
	if hist[0].Content != older.Content {
		t.Errorf("the journal's change = %+v, want %+v", hist[0], older)
	}
	if c := hist[1]; c.Retain != "c-1" || c.Content != retainedBody || c.Patch != "" || c.At.IsZero() {
		t.Errorf("the retention = %+v, want c-1 retaining the model's input, at its carrier's time", c)
	}
	if c := hist[2]; c.Patch != patchInput || c.Report != patchReport || c.Retain != "" {
		t.Errorf("the edit = %+v, want the model's hpatch input with the report it read", c)
	}
	// What applied and the journal lacked is journaled, without the report.
	got := h.commits()
	if !slices.Equal(callsOf(got), []string{"c-0", "c-1", "c-2"}) {
		t.Fatalf("journal holds %v, want c-0, c-1, c-2 once each", callsOf(got))
	}
	if got[2].Report != "" || got[2].Patch != patchInput {
		t.Errorf("journaled edit = %+v, want its patch without the report", got[2])
	}
	if h.metrics.committed != 0 || h.metrics.count("version_unknown") != 0 {
		t.Errorf("metrics %+v: a reconcile counts no commit and every version was known", h.metrics)
	}
	for _, id := range []string{"c-1", "c-2"} {
		if !h.store.Knows(testThread, id) {
			t.Errorf("%s is not known after the reconcile", id)
		}
	}
	// The thread knows them now: the next request does not reconcile.
	if _, err := h.apply(t, retainAndEdit(ranJSON, ranJSON), false); err != nil {
		t.Fatal(err)
	}
	if len(h.scripts.reconciles) != 1 || len(h.commits()) != 3 {
		t.Errorf("a second request reconciled again: %d reconciles, journal %v", len(h.scripts.reconciles), callsOf(h.commits()))
	}
}

func TestReconcileJournalsOnlyWhatItLacks(t *testing.T) {
	h := newHarness(t)
	// c-1 is journaled (before a restart) with the body it ran; the
	// request shows it too, so its request form stands in its place.
	journaled := retain.Committed{Call: "c-1", At: time.Now(), Retain: "c-1", Content: retainedBody}
	if err := h.store.Commit(testThread, []retain.Committed{journaled}); err != nil {
		t.Fatal(err)
	}
	putRetainAndEdit(t, h)
	h.scripts.notApplied = map[string]bool{"c-2": true}
	h.scripts.unknown = map[string]string{"c-1": "an edit no source gives"}
	if _, err := h.apply(t, retainAndEdit(ranJSON, ranJSON), false); err != nil {
		t.Fatal(err)
	}
	if got := callsOf(h.scripts.reconciles[0]); !slices.Equal(got, []string{"c-1", "c-2"}) {
		t.Errorf("Reconcile got %v, want c-1 once (the request's), then c-2", got)
	}
	if got := callsOf(h.commits()); !slices.Equal(got, []string{"c-1"}) {
		t.Errorf("journal holds %v; c-1 was there and c-2 did not apply", got)
	}
	if n := h.metrics.count("version_unknown"); n != 1 {
		t.Errorf("version_unknown counted %d, want 1", n)
	}
	// Known even though it did not apply: the next request leaves it.
	if !h.store.Knows(testThread, "c-2") {
		t.Error("c-2 is not known after the reconcile")
	}
}

func TestReconcileARerunTakesTheJournaledBody(t *testing.T) {
	h := newHarness(t)
	// c-1 reran @shell/c-0 and retained the body it ran; its item holds
	// only the reference.
	ran := retain.Committed{Call: "c-1", At: time.Now(), Retain: "c-1", Content: retainedBody}
	if err := h.store.Commit(testThread, []retain.Committed{ran}); err != nil {
		t.Fatal(err)
	}
	h.put(t, "c-1", retainCarrier, modelCall("c-1", response.ToolShell, "#!script=@shell/c-0"))
	if _, err := h.apply(t, requestBody(execCall("c-1", retainCarrier), callOutput("c-1", ranJSON)), false); err != nil {
		t.Fatal(err)
	}
	if len(h.scripts.reconciles) != 1 {
		t.Fatalf("Reconcile called %d times, want 1", len(h.scripts.reconciles))
	}
	if hist := h.scripts.reconciles[0]; len(hist) != 1 || hist[0].Content != retainedBody {
		t.Errorf("Reconcile got %+v, want the journaled body of the rerun", hist)
	}
}

func TestReconcileOnlyAfterTheCallRan(t *testing.T) {
	for _, tc := range []struct {
		name       string
		out1, out2 string
		reconciled []string // the history handed to Reconcile; nil: not called
		seen       []string // calls the thread found the fate of
		notSeen    []string
	}{
		{"both aborted are only marked quiet", abortedJSON, abortedJSON, nil, []string{"c-1", "c-2"}, nil},
		{"pending ones are looked at again", "", "", nil, nil, []string{"c-1", "c-2"}},
		{"the edit aborted", ranJSON, `[{"type":"input_text","text":"aborted"}]`, []string{"c-1"}, []string{"c-1", "c-2"}, nil},
		{"the retention pending", "", ranJSON, []string{"c-2"}, []string{"c-2"}, []string{"c-1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			putRetainAndEdit(t, h)
			if _, err := h.apply(t, retainAndEdit(tc.out1, tc.out2), false); err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.reconciled == nil && len(h.scripts.reconciles) != 0:
				t.Errorf("Reconcile called with %v", callsOf(h.scripts.reconciles[0]))
			case tc.reconciled != nil && len(h.scripts.reconciles) != 1:
				t.Errorf("Reconcile called %d times, want 1", len(h.scripts.reconciles))
			case tc.reconciled != nil && !slices.Equal(callsOf(h.scripts.reconciles[0]), tc.reconciled):
				t.Errorf("Reconcile got %v, want %v", callsOf(h.scripts.reconciles[0]), tc.reconciled)
			}
			if got := callsOf(h.commits()); !slices.Equal(got, tc.reconciled) {
				t.Errorf("journal holds %v, want %v", got, tc.reconciled)
			}
			h.store.View(testThread, func(v threadstate.View) {
				for _, id := range tc.seen {
					if !v.Seen(id) {
						t.Errorf("%s: its fate is not recorded", id)
					}
				}
				for _, id := range tc.notSeen {
					if v.Seen(id) {
						t.Errorf("%s: recorded before its output came", id)
					}
				}
			})
		})
	}
}

func TestReconcileLeavesQuietCarriers(t *testing.T) {
	h := newHarness(t)
	quiet := shellCarrier("c-1", "-e sh 'ls'", false)
	h.put(t, "c-1", quiet, modelCall("c-1", response.ToolShell, "ls"))
	body := requestBody(execCall("c-1", quiet), callOutput("c-1", ranJSON),
		execCall("c-own", `text("hello");`), callOutput("c-own", ranJSON))
	if _, err := h.apply(t, body, false); err != nil {
		t.Fatal(err)
	}
	if len(h.scripts.reconciles) != 0 || len(h.commits()) != 0 {
		t.Errorf("a carrier that changes no script was reconciled: %v", h.scripts.reconciles)
	}
	h.store.View(testThread, func(v threadstate.View) {
		if !v.Seen("c-1") || !v.Seen("c-own") {
			t.Error("a quiet carrier is looked at again on the next request")
		}
	})
	// Quiet is not written: the thread does not count it as known.
	if h.store.Knows(testThread, "c-1") {
		t.Error("a quiet call counts as written")
	}
}
