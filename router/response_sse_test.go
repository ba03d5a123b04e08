package router

import (
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"hpatch-router/router/request"
)

const pyInput = "#!python3\nimport sys\nprint(sys.argv)\n"

// checkSequence asserts that sequence numbers are strictly increasing.
func checkSequence(t *testing.T, evs []parsedEvent) {
	t.Helper()
	last := -1.0
	for _, e := range evs {
		n, ok := e.data["sequence_number"].(float64)
		if !ok {
			continue
		}
		if n <= last {
			t.Fatalf("sequence_number %v after %v", n, last)
		}
		last = n
	}
}

// checkNoModelTools asserts no shell/hpatch call reaches the client.
func checkNoModelTools(t *testing.T, out []byte) {
	t.Helper()
	for _, e := range parseEvents(t, out) {
		for _, p := range []string{"item.name", "response.output.#.name"} {
			r := gjson.Get(rawData(e), p)
			for _, v := range append(r.Array(), r) {
				if v.String() == "shell" || v.String() == "hpatch" {
					t.Fatalf("a model %s call leaked: %s", v.String(), rawData(e))
				}
			}
		}
		if e.data["type"] == "response.custom_tool_call_input.delta" && strings.HasPrefix(e.data["item_id"].(string), "ctc_sh") {
			t.Fatalf("a withheld delta leaked: %s", e.raw)
		}
	}
}

func rawData(e parsedEvent) string {
	var data []string
	for _, l := range strings.Split(e.raw, "\n") {
		if d, ok := strings.CutPrefix(l, "data: "); ok {
			data = append(data, d)
		}
	}
	return strings.Join(data, "\n")
}

// eventsOf returns the output events of a type that concern callID.
func eventsOf(evs []parsedEvent, typ, itemID string) []parsedEvent {
	var out []parsedEvent
	for _, e := range evs {
		if e.data["type"] != typ {
			continue
		}
		if item, ok := e.data["item"].(map[string]any); ok && item["id"] == itemID || e.data["item_id"] == itemID {
			out = append(out, e)
		}
	}
	return out
}

func TestSSERewrite(t *testing.T) {
	type want struct {
		itemID, callID, ns, carrier string
	}
	cases := []struct {
		name  string
		facts request.Info
		build func(s *stream)
		want  []want // carriers expected, in order
		same  bool   // output must equal input byte for byte
	}{
		{
			name:  "A15: shell call in the functions namespace becomes an exec carrier",
			facts: request.Info{Owned: true, Namespace: "functions"},
			build: func(s *stream) {
				s.created()
				s.call("ctc_sh1", "call_1", "shell", "functions", pyInput, 4)
				s.completed()
			},
			want: []want{{"ctc_sh1", "call_1", "functions", "carrier(worker|" + pyInput + "|true|@shell/call_1)"}},
		},
		{
			name:  "namespace omitted by the model: the carrier names the owner's",
			facts: request.Info{Owned: true, Namespace: "functions"},
			build: func(s *stream) {
				s.created()
				s.call("ctc_sh1", "call_1", "shell", "", "ls -la", 2)
				s.completed()
			},
			want: []want{{"ctc_sh1", "call_1", "functions", "carrier(direct|ls -la|false|)"}},
		},
		{
			name:  "flat owner (Codex 0.144): shell and hpatch named in functions are rewritten, their carriers in no namespace",
			facts: request.Info{Owned: true},
			build: func(s *stream) {
				s.call("ctc_sh1", "call_1", "shell", "functions", "ls", 1)
				s.call("ctc_sh2", "call_2", "hpatch", "functions", "in @shell/call_1\ntype 1:abcd \"x\"", 1)
				s.completed()
			},
			want: []want{
				{"ctc_sh1", "call_1", "", "carrier(direct|ls|false|)"},
				{"ctc_sh2", "call_2", "", `text("1:abcd edited");`},
			},
		},
		{
			name:  "flat owner: a call without namespace is rewritten",
			facts: request.Info{Owned: true},
			build: func(s *stream) {
				s.call("ctc_sh1", "call_1", "shell", "", "ls", 1)
				s.completed()
			},
			want: []want{{"ctc_sh1", "call_1", "", "carrier(direct|ls|false|)"}},
		},
		{
			name:  "params shape reaches the translator",
			facts: request.Info{Owned: true, Namespace: "functions", Params: untypedParams("workdir", "yield_time_ms")},
			build: func(s *stream) {
				s.call("ctc_sh1", "call_1", "shell", "functions", "ls", 1)
				s.completed()
			},
			want: []want{{"ctc_sh1", "call_1", "functions", "carrier(direct|ls params=workdir,yield_time_ms|false|)"}},
		},
		{
			name:  "several calls with reasoning and messages; only shell and hpatch change",
			facts: request.Info{Owned: true, Namespace: "functions"},
			build: func(s *stream) {
				s.created()
				s.reasoning("rs_1")
				s.message("msg_1", "let me look")
				s.call("ctc_sh1", "call_1", "shell", "functions", pyInput, 3)
				s.call("ctc_ex", "call_x", "exec", "functions", `text("hi")`, 2)
				s.call("ctc_sh2", "call_2", "hpatch", "functions", "in @shell/call_1\ntype 1:abcd \"x\"", 2)
				s.message("msg_2", "done")
				s.completed()
			},
			want: []want{
				{"ctc_sh1", "call_1", "functions", "carrier(worker|" + pyInput + "|true|@shell/call_1)"},
				{"ctc_sh2", "call_2", "functions", `text("1:abcd edited");`},
			},
		},
		{
			name:  "rejected translation prints the diagnostic",
			facts: request.Info{Owned: true, Namespace: "functions"},
			build: func(s *stream) {
				s.call("ctc_sh1", "call_1", "shell", "functions", "#!bad\nx", 1)
				s.completed()
			},
			want: []want{{"ctc_sh1", "call_1", "functions", "rejected(line 1: bad selector)"}},
		},
		{
			name:  "a call in another namespace passes untouched",
			facts: request.Info{Owned: true, Namespace: "functions"},
			build: func(s *stream) {
				s.call("ctc_o", "call_1", "shell", "other", "ls", 2)
				s.completed()
			},
			same: true,
		},
		{
			name:  "flat owner: a model exec named in functions is not this owner's and passes untouched",
			facts: request.Info{Owned: true},
			build: func(s *stream) {
				s.call("ctc_e", "call_1", "exec", "functions", `await tools.exec_command({cmd:"ls"})`, 2)
				s.completed()
			},
			same: true,
		},
		{
			name:  "no owner in the request: nothing changes",
			facts: request.Info{},
			build: func(s *stream) {
				s.call("ctc_o", "call_1", "shell", "functions", "ls", 2)
				s.completed()
			},
			same: true,
		},
		{
			name:  "exec without a direct exec_command call passes untouched",
			facts: request.Info{Owned: true, Namespace: "functions"},
			build: func(s *stream) {
				s.reasoning("rs_1")
				s.call("ctc_e", "call_1", "exec", "functions", `text("x")`, 2)
				s.completed()
			},
			same: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, named := range []bool{true, false} {
				s := &stream{noName: !named}
				tc.build(s)
				in := s.String()
				rt := newTestRouter(t, WithScripts(newFakeScripts()))
				out := rewriteStream(t, rt, "thread-1", tc.facts, in)
				if tc.same {
					if string(out) != in {
						t.Fatalf("stream changed:\n--- in\n%s\n--- out\n%s", in, out)
					}
					continue
				}
				checkNoModelTools(t, out)
				evs := parseEvents(t, out)
				checkSequence(t, evs)
				completed := evs[len(evs)-1]
				if completed.data["type"] != "response.completed" {
					t.Fatalf("last event is %v", completed.data["type"])
				}
				for _, w := range tc.want {
					added := eventsOf(evs, "response.output_item.added", w.itemID)
					inDone := eventsOf(evs, "response.custom_tool_call_input.done", w.itemID)
					done := eventsOf(evs, "response.output_item.done", w.itemID)
					if len(added) != 1 || len(inDone) != 1 || len(done) != 1 {
						t.Fatalf("%s: want one added/input.done/item.done, got %d/%d/%d", w.itemID, len(added), len(inDone), len(done))
					}
					if named && (added[0].name != "response.output_item.added" || done[0].name != "response.output_item.done") {
						t.Fatalf("event: lines missing or wrong: %q", added[0].raw)
					}
					if !named && added[0].name != "" {
						t.Fatalf("event: line added to an unnamed stream")
					}
					ai := added[0].data["item"].(map[string]any)
					if ai["name"] != "exec" || ai["input"] != "" || ai["status"] != "in_progress" || ai["call_id"] != w.callID {
						t.Fatalf("added item %v", ai)
					}
					if inDone[0].data["input"] != w.carrier {
						t.Fatalf("input.done input %q, want %q", inDone[0].data["input"], w.carrier)
					}
					di := done[0].data["item"].(map[string]any)
					if di["name"] != "exec" || di["input"] != w.carrier || di["call_id"] != w.callID || di["status"] != "completed" {
						t.Fatalf("done item %v", di)
					}
					ns, has := di["namespace"]
					if w.ns == "" && has || w.ns != "" && ns != w.ns {
						t.Fatalf("namespace %v (present %v), want %q", ns, has, w.ns)
					}
					// response.completed lists the carrier in the call's place.
					var found bool
					for _, it := range completed.data["response"].(map[string]any)["output"].([]any) {
						m := it.(map[string]any)
						if m["call_id"] == w.callID {
							found = true
							if m["name"] != "exec" || m["input"] != w.carrier {
								t.Fatalf("completed output item %v", m)
							}
						}
					}
					if !found {
						t.Fatalf("call %s missing from response.completed", w.callID)
					}
				}
				// Untouched items pass byte for byte.
				for _, f := range s.frames {
					if strings.Contains(f, "response.completed") {
						continue
					}
					if strings.Contains(f, `"id":"rs_1"`) || strings.Contains(f, `"id":"msg_1"`) || strings.Contains(f, `"item_id":"ctc_ex"`) {
						if !strings.Contains(string(out), f) {
							t.Fatalf("frame changed or missing:\n%s", f)
						}
					}
				}
			}
		})
	}
}

func TestSSERewriteMinimalEventsRenumbers(t *testing.T) {
	// Only output_item.done and response.completed (FACTS §3.1
	// minimal-events): the carrier needs three events where the upstream
	// sent one, so later numbers move up and stay strictly increasing.
	s := &stream{}
	done := callItem("ctc_min", "call_min_1", "shell", "functions", "ls", "completed")
	s.event("response.output_item.done", `"output_index":0,"item":`+done)
	s.items = append(s.items, done)
	s.message("msg_1", "after")
	s.completed()
	rt := newTestRouter(t)
	out := rewriteStream(t, rt, "t", request.Info{Owned: true, Namespace: "functions"}, s.String())
	evs := parseEvents(t, out)
	checkSequence(t, evs)
	checkNoModelTools(t, out)
	if got := len(evs); got != 3+3+1 {
		t.Fatalf("got %d events", got)
	}
	if n := evs[len(evs)-1].data["sequence_number"].(float64); n != 6 {
		t.Fatalf("completed renumbered to %v, want 6", n)
	}
}

func TestSSERewriteWithoutSequenceNumbers(t *testing.T) {
	in := "event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":" +
		callItem("ctc_1", "call_1", "shell", "", "ls", "completed") + "}\n\n"
	out := rewriteStream(t, newTestRouter(t), "", request.Info{Owned: true, Namespace: "functions"}, in)
	for _, e := range parseEvents(t, out) {
		if _, ok := e.data["sequence_number"]; ok {
			t.Fatalf("router invented a sequence_number: %s", e.raw)
		}
	}
}

func TestSSERewriteStreamCutMidCall(t *testing.T) {
	// The upstream dies after two deltas: nothing of the call reaches Codex
	// (no partial rewrite); what came before passes unchanged.
	s := &stream{}
	s.created()
	s.call("ctc_sh1", "call_1", "shell", "functions", pyInput, 4)
	cut := strings.Join(s.frames[:4], "")
	for _, in := range []string{cut, cut + "event: response.custom_tool_call_input.delta\ndata: {\"type\":\"response.custom"} {
		out := rewriteStream(t, newTestRouter(t), "t", request.Info{Owned: true, Namespace: "functions"}, in)
		if string(out) != s.frames[0] {
			t.Fatalf("got %q, want only response.created", out)
		}
	}
}

func TestSSERewriteFailedPassesAsIs(t *testing.T) {
	s := &stream{}
	s.created()
	s.event("response.failed", `"response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"boom"},"output":[`+
		callItem("ctc_1", "call_1", "shell", "functions", "ls", "completed")+`]}`)
	s.event("error", `"code":"server_error","message":"boom"`)
	out := rewriteStream(t, newTestRouter(t), "t", request.Info{Owned: true, Namespace: "functions"}, s.String())
	if string(out) != s.String() {
		t.Fatalf("failed stream changed:\n%s", out)
	}
}

func TestSSERewriteExecAnnotation(t *testing.T) {
	js := `const r = await tools.exec_command({cmd:"ls"}); text(JSON.stringify(r));`
	s := &stream{}
	s.call("ctc_e", "call_e", "exec", "functions", js, 2)
	s.completed()
	rt := newTestRouter(t)
	out := rewriteStream(t, rt, "thread-1", request.Info{Owned: true, Namespace: "functions"}, s.String())
	evs := parseEvents(t, out)
	checkSequence(t, evs)
	want, _ := fakeTranslator{}.AnnotateExec(js)
	if got := eventsOf(evs, "response.custom_tool_call_input.done", "ctc_e")[0].data["input"]; got != want {
		t.Fatalf("input.done %q", got)
	}
	if got := eventsOf(evs, "response.output_item.done", "ctc_e")[0].data["item"].(map[string]any)["input"]; got != want {
		t.Fatalf("item.done %q", got)
	}
	e, ok := stored(rt, "thread-1", "call_e")
	if !ok || e.Item != callItem("ctc_e", "call_e", "exec", "functions", js, "completed") {
		t.Fatalf("replay entry %+v", e)
	}
}

func TestSSERewriteHooks(t *testing.T) {
	rtm := &fakeRuntime{}
	scripts := newFakeScripts()
	rt := newTestRouter(t, WithRuntime(rtm), WithScripts(scripts))
	s := &stream{}
	s.call("ctc_1", "call_1", "shell", "functions", pyInput, 1)
	s.call("ctc_2", "call_2", "shell", "functions", "#!bash\necho a", 1)
	s.call("ctc_3", "call_3", "shell", "functions", "#!script=@shell/call_1", 1)
	s.call("ctc_4", "call_4", "hpatch", "functions", "fail please", 1)
	s.completed()
	out := rewriteStream(t, rt, "thread-9", request.Info{Owned: true, Namespace: "functions"}, s.String())
	evs := parseEvents(t, out)
	if len(rtm.calls) != 1 || rtm.calls[0] != "thread-9" {
		t.Fatalf("PrepareThread calls %v, want one for thread-9", rtm.calls)
	}
	if scripts.retained["thread-9/call_1"] != pyInput || scripts.retained["thread-9/call_3"] != pyInput {
		t.Fatalf("retained %v", scripts.retained)
	}
	if want := []string{"call_1", "call_2", "call_3"}; !slices.Equal(scripts.staged, want) {
		t.Fatalf("staged retentions %v, want %v", scripts.staged, want)
	}
	rerun := eventsOf(evs, "response.custom_tool_call_input.done", "ctc_3")[0].data["input"]
	if rerun != "carrier(rerun|"+pyInput+"|true|@shell/call_3)" {
		t.Fatalf("rerun carrier %q", rerun)
	}
	hp := eventsOf(evs, "response.custom_tool_call_input.done", "ctc_4")[0].data["input"]
	if hp != `text("hpatch: line 1: no such target second line");` {
		t.Fatalf("hpatch error carrier %q", hp)
	}
}

func TestSSERewriteNilHooks(t *testing.T) {
	rt := newTestRouter(t)
	s := &stream{}
	s.call("ctc_1", "call_1", "shell", "functions", pyInput, 1)
	s.call("ctc_2", "call_2", "hpatch", "functions", "in @shell/x", 1)
	s.completed()
	evs := parseEvents(t, rewriteStream(t, rt, "th", request.Info{Owned: true, Namespace: "functions"}, s.String()))
	if got := eventsOf(evs, "response.custom_tool_call_input.done", "ctc_1")[0].data["input"]; got != "carrier(worker|"+pyInput+"|false|)" {
		t.Fatalf("carrier %q", got)
	}
	if got := eventsOf(evs, "response.custom_tool_call_input.done", "ctc_2")[0].data["input"].(string); !strings.Contains(got, "not available") {
		t.Fatalf("hpatch carrier %q", got)
	}
}
