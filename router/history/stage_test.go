package history

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"hpatch-router/retain"
	"hpatch-router/router/request"
)

func TestApplyWithoutThreadDoesNothing(t *testing.T) {
	h := newHarness(t)
	h.scripts.staged = []retain.Committed{staged("c-1")}
	carrier := shellCarrier("c-1", "-e python3 'print(1)'", true)
	h.put(t, "c-1", carrier, modelCall("c-1", "shell", "#!python3\nprint(1)\n"))
	if err := h.store.Commit(testThread, []retain.Committed{staged("c-0")}); err != nil {
		t.Fatal(err)
	}
	req, err := request.Parse(requestBody(execCall("c-1", carrier), callOutput("c-1", ranJSON)))
	if err != nil {
		t.Fatal(err)
	}
	edits, err := h.stage.Apply(context.Background(), Turn{Req: req, Created: true})
	if edits != nil || err != nil {
		t.Fatalf("Apply without a thread = %v, %v; want nothing", edits, err)
	}
	if h.scripts.settles != 0 || len(h.scripts.restores) != 0 || len(h.scripts.reconciles) != 0 {
		t.Errorf("the scripts were asked: %d settles, %d restores, %d reconciles",
			h.scripts.settles, len(h.scripts.restores), len(h.scripts.reconciles))
	}
	if len(h.metrics.replay) != 0 || h.metrics.committed != 0 || h.metrics.restored != 0 {
		t.Errorf("metrics counted %+v", h.metrics)
	}
	if _, first := h.store.History(testThread); !first {
		t.Error("Apply without a thread read the journal of another")
	}
}

// journalTwo journals two written retentions in testThread.
func journalTwo(t *testing.T, h *harness) []retain.Committed {
	t.Helper()
	changes := []retain.Committed{staged("c-0"), staged("c-1")}
	if err := h.store.Commit(testThread, changes); err != nil {
		t.Fatal(err)
	}
	return changes
}

// applyCompaction runs the stage for a body that is not a JSON object
// (Req nil).
func applyCompaction(t *testing.T, h *harness, created bool) {
	t.Helper()
	edits, err := h.stage.Apply(context.Background(), Turn{Thread: testThread, Created: created})
	if edits != nil || err != nil {
		t.Fatalf("Apply without a body = %v, %v; want nothing", edits, err)
	}
}

func TestApplyWithoutBodyOnlyRestoresScripts(t *testing.T) {
	h := newHarness(t)
	changes := journalTwo(t, h)
	h.scripts.staged = []retain.Committed{staged("c-2")}

	applyCompaction(t, h, false)
	if len(h.scripts.restores) != 1 {
		t.Fatalf("Restore called %d times on the first request, want 1", len(h.scripts.restores))
	}
	if got := callsOf(h.scripts.restores[0]); !slices.Equal(got, callsOf(changes)) {
		t.Errorf("Restore got the history %v, want the journal's %v in order", got, callsOf(changes))
	}
	if h.metrics.restored != 2 {
		t.Errorf("RestoredScripts counted %d, want 2", h.metrics.restored)
	}
	if h.scripts.settles != 0 {
		t.Error("a request without a body settled its thread")
	}

	applyCompaction(t, h, false)
	if len(h.scripts.restores) != 1 {
		t.Errorf("Restore called again on a later request: %d calls", len(h.scripts.restores))
	}
	// The runtime made the thread's directory again: its scripts are put
	// back even though the thread was restored before.
	applyCompaction(t, h, true)
	if len(h.scripts.restores) != 2 || h.metrics.restored != 4 {
		t.Errorf("after Created: %d restores, %d restored; want 2, 4", len(h.scripts.restores), h.metrics.restored)
	}
}

func TestApplyRestoresOncePerThread(t *testing.T) {
	for _, tc := range []struct {
		name    string
		created bool
	}{
		{"first request", false},
		// A first request whose directory was made again is one
		// reason to restore, not two.
		{"first request with its directory made again", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			journalTwo(t, h)
			if _, err := h.stage.Apply(context.Background(), Turn{Thread: testThread, Created: tc.created}); err != nil {
				t.Fatal(err)
			}
			if len(h.scripts.restores) != 1 || h.metrics.restored != 2 {
				t.Errorf("%d restores, %d restored; want 1, 2", len(h.scripts.restores), h.metrics.restored)
			}
		})
	}
}

func TestApplyRestoresNothingWithoutHistory(t *testing.T) {
	h := newHarness(t)
	applyCompaction(t, h, true)
	if len(h.scripts.restores) != 0 {
		t.Errorf("Restore called with an empty journal: %v", h.scripts.restores)
	}
	// A restore that wrote nothing is not counted.
	h.scripts.restored = 0
	journalTwo(t, h)
	applyCompaction(t, h, true)
	if len(h.scripts.restores) != 1 || h.metrics.restored != 0 {
		t.Errorf("%d restores, %d restored; want 1 call counted as 0", len(h.scripts.restores), h.metrics.restored)
	}
}

func TestApplyRestoresFromTheJournalAfterARestart(t *testing.T) {
	h := newHarness(t)
	changes := journalTwo(t, h)
	applyCompaction(t, h, false)
	if err := h.store.Close(); err != nil {
		t.Fatal(err)
	}
	// A new router on the same state directory reads the journal again.
	scripts, metrics := newFakeScripts(), &fakeMetrics{}
	stage := New(openStore(t, h.dir), scripts, fakeTranslator{}, metrics, slog.New(slog.DiscardHandler))
	if _, err := stage.Apply(context.Background(), Turn{Thread: testThread}); err != nil {
		t.Fatal(err)
	}
	if len(scripts.restores) != 1 {
		t.Fatalf("Restore called %d times after the restart, want 1", len(scripts.restores))
	}
	got := scripts.restores[0]
	if !slices.Equal(callsOf(got), callsOf(changes)) {
		t.Fatalf("restored history %v, want %v", callsOf(got), callsOf(changes))
	}
	for i, c := range got {
		if c.Content != changes[i].Content || !c.At.Equal(changes[i].At.Truncate(time.Millisecond)) {
			t.Errorf("journaled change %d = %+v, want %+v (at millisecond precision)", i, c, changes[i])
		}
	}
}

func TestApplyWithoutScriptsOnlyRestoresCarriers(t *testing.T) {
	h := newHarness(t)
	journalTwo(t, h)
	stage := New(h.store, nil, fakeTranslator{}, h.metrics, slog.New(slog.DiscardHandler))
	carrier := shellCarrier("c-1", "-e python3 'print(1)'", true)
	original := modelCall("c-1", "shell", "#!python3\nprint(1)\n")
	h.put(t, "c-1", carrier, original)
	req, err := request.Parse(requestBody(execCall("c-1", carrier), callOutput("c-1", ranJSON)))
	if err != nil {
		t.Fatal(err)
	}
	edits, err := stage.Apply(context.Background(), Turn{Thread: testThread, Req: req, Created: true})
	if err != nil || len(edits) != 1 || string(edits[0].Repl) != original {
		t.Fatalf("Apply = %v, %v; want the carrier restored", edits, err)
	}
	if h.metrics.restored != 0 || h.metrics.committed != 0 || h.metrics.count("restored") != 1 {
		t.Errorf("metrics %+v; want only one carrier restored", h.metrics)
	}
	if _, first := h.store.History(testThread); !first {
		t.Error("a stage without scripts read the journal's history")
	}
}

// callsOf lists the calls of changes.
func callsOf(changes []retain.Committed) []string {
	out := make([]string, len(changes))
	for i, c := range changes {
		out[i] = c.Call
	}
	return out
}
