package response_test

import (
	"errors"
	"slices"
	"strconv"
	"testing"

	"github.com/tidwall/gjson"

	"hpatch-router/plugins/registry"
	"hpatch-router/router/response"
	"hpatch-router/shebang"
)

// modelCall is one custom tool call a model makes in the functions
// namespace.
type modelCall struct{ name, callID, input string }

// respond streams calls as one response through a new Stream of s and
// returns the input of the carrier the client received for each call, by
// call_id, from its item done, and checks that response.completed lists
// the same carriers.
func respond(t *testing.T, s *response.Session, calls ...modelCall) map[string]string {
	t.Helper()
	var up upstream
	var done []string
	for i, c := range calls {
		done = append(done, up.call(i, "ctc_"+strconv.Itoa(i), c.callID, "functions", c.name, c.input))
	}
	up.completed(done...)
	st := response.NewStream(s)
	evs := parse(t, relay(t, st, up.String()))
	if st.Pending() != 0 {
		t.Fatalf("%d calls still pending", st.Pending())
	}
	carriers := map[string]string{}
	for _, ev := range evs {
		switch ev.name {
		case "response.output_item.done":
			it := gjson.Get(ev.data, "item")
			if it.Get("name").String() != "exec" {
				t.Fatalf("item done %s is no exec carrier", it.Raw)
			}
			carriers[it.Get("call_id").String()] = it.Get("input").String()
		case "response.completed":
			for _, it := range gjson.Get(ev.data, "response.output").Array() {
				if id := it.Get("call_id").String(); carriers[id] != it.Get("input").String() {
					t.Fatalf("response.completed lists %s, item done carried %q", it.Raw, carriers[id])
				}
			}
		}
	}
	return carriers
}

// scriptFree is the reason an observer reads for a diagnostic that may
// quote the model's script.
func scriptFree(prefix string) string {
	return prefix + "rejected (the diagnostic may quote the script, so it is shown only with bodies enabled)"
}

// A shell call the translator refuses, or whose rerun reference does not
// resolve, gets the translator's rejection carrier; it is counted by its
// reason and observed as a rejection, never as a call, and nothing runs
// or is retained.
func TestStreamRejectedShellCall(t *testing.T) {
	cases := []struct {
		name, input, carrier string
		want                 response.RejectionEvent
	}{
		{"translate", "#!fail\nsecret-body\n", "refuse(line 2: cannot run `secret-body`)", response.RejectionEvent{
			Code: "translate", Reason: scriptFree("shell: line 2: "), Detail: "shell: line 2: cannot run `secret-body`"}},
		{"script_reference", "#!script=@shell/gone", "refuse(@shell/gone is not retained)", response.RejectionEvent{
			Code: "script_reference", Reason: scriptFree("shell: "), Detail: "shell: @shell/gone is not retained"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			got := respond(t, r.session(owned), modelCall{"shell", "call_1", c.input})
			if got["call_1"] != c.carrier {
				t.Fatalf("carrier %q, want %q", got["call_1"], c.carrier)
			}
			c.want.Thread, c.want.CallID = thread, "call_1"
			if !slices.Equal(r.obs.rejections, []response.RejectionEvent{c.want}) || len(r.obs.calls) != 0 {
				t.Fatalf("rejections %+v, calls %+v", r.obs.rejections, r.obs.calls)
			}
			if r.j.count("metric rejection "+c.name) != 1 || r.j.count("carrier") != 0 || r.j.count("ensure thread-1") != 0 {
				t.Fatalf("deps asked %q", r.j.calls)
			}
		})
	}
}

// An hpatch call on retained scripts is checked and staged by
// Scripts.StageEdit, and its carrier only prints the report
// (PrintCarrier, starting ReportPrefix); a refusal prints "hpatch: " and
// the error on one line, and is counted and observed.
func TestStreamHpatchCall(t *testing.T) {
	noScripts := "hpatch: retained scripts are not available in this router, so there is nothing to edit"
	noThread := "hpatch: the request carried no thread id, so no retained script can be edited"
	cases := []struct {
		name       string
		noScripts  bool
		thread     string
		input      string
		printed    string
		staged     bool
		rejections []response.RejectionEvent
	}{
		{name: "staged", thread: thread, input: "@shell/call_0\n1:ab12 print(2)\n", printed: editReport, staged: true},
		{name: "stale", thread: thread, input: "stale\n", printed: "hpatch: line 3: the row changed now: x = 1", staged: true,
			rejections: []response.RejectionEvent{{Thread: thread, CallID: "call_9", Code: "hpatch", Reason: scriptFree("hpatch: "),
				Detail: "hpatch: line 3: the row changed now: x = 1"}}},
		{name: "no retained scripts", noScripts: true, thread: thread, input: "@shell/call_0\n", printed: noScripts,
			rejections: []response.RejectionEvent{{Thread: thread, CallID: "call_9", Code: "hpatch", Reason: noScripts, Detail: noScripts}}},
		{name: "no thread", input: "@shell/call_0\n", printed: noThread,
			rejections: []response.RejectionEvent{{CallID: "call_9", Code: "hpatch", Reason: noThread, Detail: noThread}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			if c.noScripts {
				r.deps.Scripts = nil
			}
			s := response.New(t.Context(), r.deps, c.thread, owned, response.Turn{})
			got := respond(t, s, modelCall{"hpatch", "call_9", c.input})["call_9"]
			if got != response.PrintCarrier(c.printed) {
				t.Fatalf("carrier %q, want PrintCarrier(%q)", got, c.printed)
			}
			if staged := r.j.count("stage-edit thread-1 call_9") == 1; staged != c.staged || r.j.count("metric hpatch") != 1 {
				t.Fatalf("deps asked %q", r.j.calls)
			}
			if c.rejections == nil && (r.j.count("metric rejection hpatch") != 0 || r.scripts.edits["call_9"] != c.input) {
				t.Fatalf("edits %q, deps asked %q", r.scripts.edits, r.j.calls)
			}
			if !slices.Equal(r.obs.rejections, c.rejections) || r.j.count("metric rejection hpatch") != len(c.rejections) {
				t.Fatalf("rejections %+v, deps asked %q", r.obs.rejections, r.j.calls)
			}
		})
	}
}

// A call of a declared tool the request offered is translated by its
// spec (shebang.TranslateTool) and rendered by the Translator with no
// retention, after the runtime is ensured; a refused input prints
// "NAME: why" and is counted as a tool rejection.
func TestStreamDeclaredToolCall(t *testing.T) {
	spec := shebang.ToolSpec{Run: []string{"python3"}}
	facts := owned
	facts.Tools = []*registry.Tool{{Name: "fmt", Spec: spec}}
	r := newRig(t)
	got := respond(t, r.session(facts), modelCall{"fmt", "call_1", "print(1)\n"}, modelCall{"fmt", "call_2", "a\x00b"})

	_, nul := shebang.TranslateTool(spec, "a\x00b", shebang.Options{})
	if got["call_1"] != "run(worker|print(1)\n|false|)" || nul == nil || got["call_2"] != shebang.ToolRejectionCarrier("fmt", nul) {
		t.Fatalf("carriers %q", got)
	}
	want := []string{"metric tool fmt", "ensure thread-1", "carrier", "metric carrier", "metric tool fmt", "metric rejection tool", "metric carrier"}
	if !slices.Equal(r.j.calls, want) {
		t.Fatalf("deps asked\n%q\nwant\n%q", r.j.calls, want)
	}
	if len(r.obs.calls) != 1 || r.obs.calls[0].Tool != "fmt" || r.obs.calls[0].Kind != "worker" || r.obs.calls[0].ScriptRef != "" {
		t.Fatalf("calls %+v", r.obs.calls)
	}
	if len(r.obs.rejections) != 1 || r.obs.rejections[0].Code != "tool" || r.obs.rejections[0].Reason != scriptFree("fmt: line 1: ") {
		t.Fatalf("rejections %+v", r.obs.rejections)
	}
}

// The runtime is ensured once per response, just before the first
// carrier that runs the worker, and not at all when the request checked
// it (RuntimeReady) or no carrier runs the worker. When it fails, every
// worker call of the response is a rejection that says so (it quotes no
// script) and the runtime is not asked again; direct calls still run.
func TestStreamEnsuresTheRuntimeOnce(t *testing.T) {
	calls := []modelCall{{"shell", "c1", "ls\n"}, {"shell", "c2", "#!python3\n1\n"}, {"shell", "c3", "#!node\n2\n"}}
	ran := map[string]string{"c1": "run(direct|ls\n|false|)", "c2": "run(worker|#!python3\n1\n|true|@shell/c2)", "c3": "run(worker|#!node\n2\n|true|@shell/c3)"}
	failed := "the router could not prepare this thread's runtime: disk full"
	refused := map[string]string{"c1": ran["c1"], "c2": "refuse(" + failed + ")", "c3": "refuse(" + failed + ")"}
	direct := []string{"translate", "metric shell direct bash 0", "carrier", "metric carrier"}
	worker := func(interp, id string) []string {
		return []string{"translate", "metric shell worker " + interp + " 0", "stage thread-1 " + id, "carrier", "metric carrier"}
	}
	refusedWorker := []string{"translate", "metric rejection runtime", "metric carrier"}
	cat := func(parts ...[]string) []string { return slices.Concat(parts...) }
	cases := []struct {
		name     string
		ready    func(*response.Session)
		ensure   error
		calls    []modelCall
		carriers map[string]string
		journal  []string
		rejected []string // code and call id of each rejection
	}{
		{name: "ensured before the first worker carrier", calls: calls, carriers: ran,
			journal: cat(direct, []string{"translate", "ensure thread-1"}, worker("python3", "c2")[1:], worker("node", "c3"))},
		{name: "direct calls only", calls: calls[:1], carriers: map[string]string{"c1": ran["c1"]}, journal: direct},
		{name: "the request checked it", ready: func(s *response.Session) { s.RuntimeReady(nil) }, calls: calls, carriers: ran,
			journal: cat(direct, worker("python3", "c2"), worker("node", "c3"))},
		{name: "it fails", ensure: errors.New("disk full"), calls: calls, carriers: refused,
			journal: cat(direct, []string{"translate", "ensure thread-1"}, refusedWorker[1:], refusedWorker), rejected: []string{"runtime c2", "runtime c3"}},
		{name: "the request's check failed", ready: func(s *response.Session) { s.RuntimeReady(errors.New("disk full")) }, calls: calls,
			carriers: refused, journal: cat(direct, refusedWorker, refusedWorker), rejected: []string{"runtime c2", "runtime c3"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			r.runtime.err = c.ensure
			s := r.session(owned)
			if c.ready != nil {
				c.ready(s)
			}
			got := respond(t, s, c.calls...)
			for id, want := range c.carriers {
				if got[id] != want {
					t.Errorf("carrier of %s %q, want %q", id, got[id], want)
				}
			}
			if !slices.Equal(r.j.calls, c.journal) {
				t.Fatalf("deps asked\n%q\nwant\n%q", r.j.calls, c.journal)
			}
			var codes []string
			for _, e := range r.obs.rejections {
				if e.Reason != "shell: "+failed || e.Detail != e.Reason {
					t.Errorf("rejection %+v", e)
				}
				codes = append(codes, e.Code+" "+e.CallID)
			}
			if !slices.Equal(codes, c.rejected) {
				t.Fatalf("rejections %q, want %q", codes, c.rejected)
			}
		})
	}
}

// Observers that do not listen get no call events, but still every
// rejection: the session skips building what nobody reads.
func TestStreamInactiveObserversGetOnlyRejections(t *testing.T) {
	r := newRig(t)
	r.obs.active = false
	facts := owned
	facts.Tools = []*registry.Tool{{Name: "fmt", Spec: shebang.ToolSpec{Run: []string{"python3"}}}}
	respond(t, r.session(facts), modelCall{"shell", "c1", "ls\n"}, modelCall{"fmt", "c2", "x"}, modelCall{"shell", "c3", "#!fail"})
	if len(r.obs.calls) != 0 || len(r.obs.rejections) != 1 || r.obs.rejections[0].CallID != "c3" {
		t.Fatalf("calls %+v, rejections %+v", r.obs.calls, r.obs.rejections)
	}
}
