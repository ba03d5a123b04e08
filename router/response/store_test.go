package response_test

import (
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	"hpatch-router/router/response"
	"hpatch-router/router/threadstate"
)

// After a response, the thread's state maps each carrier the client got
// back to the model's item, byte for byte as the upstream sent it in
// output_item.done: a later request that echoes the carrier restores the
// model's call from it (View.Match by the carrier, View.Get the newest).
// A refused call's carrier and an annotated model exec are recorded too;
// the entries are in the journal, so they outlive the router.
func TestSessionRecordsTheModelItem(t *testing.T) {
	r := newRig(t)
	before := time.Now().Truncate(time.Millisecond) // a journal keeps milliseconds
	calls := []modelCall{{"shell", "call_1", "ls\n"}, {"shell", "call_2", "#!fail\n"}, {"hpatch", "call_3", "@shell/call_1\n"},
		{"exec", "call_4", "tools.exec_command({cmd:'ls'})"}, {"shell", "", "pwd\n"}}
	carriers := respond(t, r.session(owned), calls...)

	check := func(store *threadstate.Store) {
		t.Helper()
		store.View(thread, func(v threadstate.View) {
			for i, c := range calls[:4] {
				model := item("ctc_"+strconv.Itoa(i), c.callID, "functions", c.name, c.input, "completed")
				e, ok := v.Get(c.callID)
				if !ok || e.Item != model || e.At.Before(before) {
					t.Errorf("Get(%s) = %+v, %v; want the item %s", c.callID, e, ok, model)
				}
				if e, ok := v.Match(c.callID, carriers[c.callID]); !ok || e.Item != model {
					t.Errorf("Match(%s, its carrier) = %+v, %v", c.callID, e, ok)
				}
				if _, ok := v.Match(c.callID, c.input); ok {
					t.Errorf("Match(%s) found the model's input as a carrier", c.callID)
				}
			}
			if _, ok := v.Get(""); ok {
				t.Error("a call with no call_id was recorded")
			}
		})
	}
	check(r.store)
	again, err := threadstate.Open(r.dir, threadstate.DefaultLimits(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if err := r.store.Close(); err != nil {
		t.Fatal(err)
	}
	check(again)
}

// A session with no thread id records nothing: there is no thread to
// restore into.
func TestSessionWithoutThreadRecordsNothing(t *testing.T) {
	r := newRig(t)
	s := response.New(t.Context(), r.deps, "", owned, response.Turn{})
	respond(t, s, modelCall{"shell", "call_1", "#!python3\n1\n"})
	if got := r.store.RecentThreads(time.Time{}); len(got) != 0 || r.j.count("stage thread-1 call_1") != 0 {
		t.Fatalf("threads %q, deps asked %q", got, r.j.calls)
	}
}

// A later response that sends the same call again (same call_id, name,
// namespace and input; the item id may change) gets the carrier sent
// before, with no new translation, retention or edit, counted as a replay;
// the same call_id with another input is a new call, and both versions
// stay restorable.
func TestLaterResponseSendsTheSameCarrier(t *testing.T) {
	r := newRig(t)
	first := respond(t, r.session(owned), modelCall{"shell", "call_1", "#!python3\n1\n"}, modelCall{"hpatch", "call_2", "@shell/call_1\n"})
	r.j.calls = nil
	again := respond(t, r.session(owned), modelCall{"hpatch", "call_2", "@shell/call_1\n"}, modelCall{"shell", "call_1", "#!python3\n1\n"})
	if !maps.Equal(first, again) || r.j.count("metric replay resent") != 2 || r.j.count("translate") != 0 || r.j.count("metric hpatch") != 0 {
		t.Fatalf("first %q, again %q, deps asked %q", first, again, r.j.calls)
	}
	changed := respond(t, r.session(owned), modelCall{"shell", "call_1", "#!python3\n2\n"})
	r.store.View(thread, func(v threadstate.View) {
		newest, _ := v.Get("call_1")
		old, ok := v.Match("call_1", first["call_1"])
		if changed["call_1"] == first["call_1"] || !ok || old.Item == newest.Item || newest.Item != item("ctc_0", "call_1", "functions", "shell", "#!python3\n2\n", "completed") {
			t.Fatalf("newest %+v, old %+v %v", newest, old, ok)
		}
	})
}

// A call sent again whose staging was lost (a cut stream discarded it)
// and that the thread does not know ran is staged again as its carrier
// said: a retention as retained, an edit only if it gives the same
// report, else the edit is settled as gone.
func TestLaterResponseStagesAgain(t *testing.T) {
	cases := []struct {
		name    string
		report  string // what StageEdit reports on the second check
		journal []string
	}{
		{"same report", editReport, []string{"metric replay resent", "stage thread-1 call_1", "metric carrier",
			"metric replay resent", "stage-edit thread-1 call_2", "metric carrier"}},
		{"another report", "@shell/call_1 1:ffff edited", []string{"metric replay resent", "stage thread-1 call_1", "metric carrier",
			"metric replay resent", "stage-edit thread-1 call_2", "settle thread-1", "metric carrier"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			calls := []modelCall{{"shell", "call_1", "#!python3\n1\n"}, {"hpatch", "call_2", "@shell/call_1\n"}}
			first := respond(t, r.session(owned), calls...)
			r.j.calls = nil
			r.scripts.retained, r.scripts.edits, r.scripts.report = map[string]string{}, map[string]string{}, c.report
			again := respond(t, r.session(owned), calls...)
			if !maps.Equal(first, again) || !slices.Equal(r.j.calls, c.journal) || r.scripts.retained["call_1"] != "#!python3\n1\n" {
				t.Fatalf("carriers %q then %q, deps asked\n%q\nwant\n%q", first, again, r.j.calls, c.journal)
			}
		})
	}
}
