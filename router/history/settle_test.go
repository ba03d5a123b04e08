package history

import (
	"slices"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"hpatch-router/retain"
	"hpatch-router/router/request"
)

func TestOutputState(t *testing.T) {
	for _, tc := range []struct {
		name   string
		output string // raw JSON; "" is an item without output
		want   retain.CallState
	}{
		{"a plain aborted string did not run", `"aborted"`, retain.CallAborted},
		{"one text item aborted did not run", `[{"type":"input_text","text":"aborted"}]`, retain.CallAborted},
		{"one item's text is read whatever its type", `[{"type":"output_text","text":"aborted"}]`, retain.CallAborted},
		{"two aborted items ran", `[{"type":"input_text","text":"aborted"},{"type":"input_text","text":"aborted"}]`, retain.CallRan},
		{"no items ran", `[]`, retain.CallRan},
		{"one other text item ran", `[{"type":"input_text","text":"exit 0"}]`, retain.CallRan},
		{"other text ran", `"exit 0\nhello"`, retain.CallRan},
		{"aborted is matched exactly, not by case", `"Aborted"`, retain.CallRan},
		{"aborted is matched exactly, not trimmed", `"aborted\n"`, retain.CallRan},
		{"an empty output ran", `""`, retain.CallRan},
		{"an object is not a text item", `{"text":"aborted"}`, retain.CallRan},
		{"a missing output ran", "", retain.CallRan},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out gjson.Result
			if tc.output != "" {
				out = gjson.Parse(tc.output)
			}
			if got := outputState(out); got != tc.want {
				t.Errorf("outputState(%s) = %v, want %v", tc.output, got, tc.want)
			}
		})
	}
}

func TestRanCallsACallSentAgainRanIfOneOutputSaysSo(t *testing.T) {
	req, err := request.Parse(requestBody(
		callOutput("again", abortedJSON), callOutput("again", ranJSON),
		callOutput("first", ranJSON), callOutput("first", abortedJSON),
		callOutput("twice", abortedJSON), callOutput("twice", `[{"type":"input_text","text":"aborted"}]`),
		callOutput("once", ranJSON),
		execCall("no-output", "text(1);"),
	))
	if err != nil {
		t.Fatal(err)
	}
	got := ranCalls(req)
	want := map[string]retain.CallState{
		"again": retain.CallRan,     // aborted, then ran
		"first": retain.CallRan,     // ran, then aborted
		"twice": retain.CallAborted, // aborted both times
		"once":  retain.CallRan,
	}
	if len(got) != len(want) {
		t.Errorf("ranCalls read %d calls, want %d (a call without output has no state): %v", len(got), len(want), got)
	}
	for id, st := range want {
		if got[id] != st {
			t.Errorf("call %s: state %v, want %v", id, got[id], st)
		}
	}
}

// staged is a retention staged for call id now.
func staged(id string) retain.Committed {
	return retain.Committed{Call: id, At: time.Now(), Retain: id, Content: "#!python3\nprint(" + quoted(id) + ")\n"}
}

func TestSettleStates(t *testing.T) {
	// Every staged call's state, read from one request: its output ran or
	// was aborted, it is there without output, or it is gone.
	body := requestBody(
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}`,
		execCall("c-ran", shellCarrier("c-ran", "-e python3 'print(1)'", false)), callOutput("c-ran", ranJSON),
		execCall("c-aborted", shellCarrier("c-aborted", "-e python3 'print(2)'", false)), callOutput("c-aborted", abortedJSON),
		execCall("c-pending", shellCarrier("c-pending", "-e python3 'print(3)'", false)),
		// Any custom tool call counts as there, not only exec.
		`{"type":"custom_tool_call","name":"apply_patch","call_id":"c-other","input":"*** Begin Patch"}`,
	)
	for _, tc := range []struct {
		name      string
		streaming bool
		want      map[string]retain.CallState
	}{
		{"idle thread", false, map[string]retain.CallState{
			"c-ran": retain.CallRan, "c-aborted": retain.CallAborted, "c-pending": retain.CallPending,
			"c-other": retain.CallPending, "c-gone": retain.CallGone,
		}},
		{"streaming thread takes no call as gone", true, map[string]retain.CallState{
			"c-ran": retain.CallRan, "c-aborted": retain.CallAborted, "c-pending": retain.CallPending,
			"c-other": retain.CallPending, "c-gone": retain.CallPending,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			for _, id := range []string{"c-ran", "c-aborted", "c-pending", "c-other", "c-gone"} {
				h.scripts.staged = append(h.scripts.staged, staged(id))
			}
			edits, err := h.apply(t, body, tc.streaming)
			if err != nil || edits != nil {
				t.Fatalf("Apply = %v, %v; want no edits and no error (no carrier is known)", edits, err)
			}
			if h.scripts.settles != 1 {
				t.Fatalf("Settle called %d times, want 1", h.scripts.settles)
			}
			for id, st := range tc.want {
				if got := h.scripts.states[id]; got != st {
					t.Errorf("call %s settled as %v, want %v", id, got, st)
				}
			}
			if got := h.journaled(); !slices.Equal(got, []string{"c-ran"}) {
				t.Errorf("journal holds %v, want only the call that ran", got)
			}
			if hist, _ := h.store.History(testThread); len(hist) != 1 || hist[0].Content != staged("c-ran").Content {
				t.Errorf("History = %+v, want the written retention of c-ran", hist)
			}
			if h.metrics.committed != 1 {
				t.Errorf("Committed counted %d, want 1", h.metrics.committed)
			}
			if !h.store.Knows(testThread, "c-ran") {
				t.Error("the written call is not known to the thread")
			}
			if len(h.scripts.reconciles) != 0 {
				t.Errorf("Reconcile called for changes settle wrote or no carrier tells of: %v", h.scripts.reconciles)
			}
		})
	}
}

func TestSettleWritesOnceAcrossRequests(t *testing.T) {
	// A pending call stays staged; the request that carries its output
	// writes it, and the journal gains exactly that change.
	h := newHarness(t)
	h.scripts.staged = []retain.Committed{staged("c-1")}
	carrier := shellCarrier("c-1", "-e python3 'print(1)'", true)
	if _, err := h.apply(t, requestBody(execCall("c-1", carrier)), false); err != nil {
		t.Fatal(err)
	}
	if len(h.journaled()) != 0 || h.metrics.committed != 0 {
		t.Fatalf("a pending call was written: journal %v, committed %d", h.journaled(), h.metrics.committed)
	}
	if _, err := h.apply(t, requestBody(execCall("c-1", carrier), callOutput("c-1", ranJSON)), false); err != nil {
		t.Fatal(err)
	}
	if got := h.journaled(); !slices.Equal(got, []string{"c-1"}) || h.metrics.committed != 1 {
		t.Errorf("after its output: journal %v, committed %d; want [c-1], 1", got, h.metrics.committed)
	}
	// Settle marked it known: its retaining carrier is not reconciled.
	if len(h.scripts.reconciles) != 0 {
		t.Errorf("Reconcile called for a call settle wrote: %v", h.scripts.reconciles)
	}
	if _, err := h.apply(t, requestBody(execCall("c-1", carrier), callOutput("c-1", ranJSON)), false); err != nil {
		t.Fatal(err)
	}
	if h.scripts.settles != 2 {
		t.Errorf("Settle called %d times, want 2 (not once nothing is staged)", h.scripts.settles)
	}
	if len(h.journaled()) != 1 || h.metrics.committed != 1 {
		t.Errorf("a third request wrote again: journal %v, committed %d", h.journaled(), h.metrics.committed)
	}
}

func TestSettleWithNothingWrittenJournalsNothing(t *testing.T) {
	h := newHarness(t)
	h.scripts.staged = []retain.Committed{staged("c-1")}
	if _, err := h.apply(t, requestBody(callOutput("c-1", abortedJSON)), false); err != nil {
		t.Fatal(err)
	}
	if h.scripts.states["c-1"] != retain.CallAborted {
		t.Errorf("c-1 settled as %v, want aborted", h.scripts.states["c-1"])
	}
	if len(h.journaled()) != 0 || h.metrics.committed != 0 || h.store.Knows(testThread, "c-1") {
		t.Errorf("an aborted call left a trace: journal %v, committed %d", h.journaled(), h.metrics.committed)
	}
}
