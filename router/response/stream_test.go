package response_test

import (
	"slices"
	"strings"
	"testing"

	"hpatch-router/router/request"
	"hpatch-router/router/response"
	"hpatch-router/router/sse"
)

// A model shell call streams as added, input deltas, input done and item
// done; the client gets none of those but, at the item done, the exec
// carrier's added (empty input, in progress), input done and item done,
// numbered from the withheld added. The events around it pass byte for
// byte; response.completed lists the carrier in the call's place.
func TestStreamShellCallBecomesExecCarrier(t *testing.T) {
	r := newRig(t)
	var up upstream
	created := up.created()
	input := "#!python3\nprint(1)\n"
	done := up.call(0, "ctc_1", "call_1", "functions", response.ToolShell, "#!python3\n", "print(1)\n")
	up.completed(done)

	got := relay(t, response.NewStream(r.session(owned)), up.String())

	carrier := "run(worker|" + input + "|true|@shell/call_1)"
	want := created + carrierEvents(1, 0, "ctc_1", "call_1", "functions", carrier) +
		frame("response.completed", `{"type":"response.completed","sequence_number":6,"response":{"id":"resp_1","status":"completed","output":[`+
			item("ctc_1", "call_1", "functions", "exec", carrier, "completed")+`],"usage":{"total_tokens":9}}}`)
	if got != want {
		t.Fatalf("client got\n%s\nwant\n%s", got, want)
	}
	// The call is seen twice (item done, response.completed) and is
	// translated, staged, counted and observed once.
	for _, c := range []string{"translate", "ensure thread-1", "stage thread-1 call_1", "metric carrier", "metric shell worker python3 0", "carrier"} {
		if n := r.j.count(c); n != 1 {
			t.Errorf("%q %d times in %q", c, n, r.j.calls)
		}
	}
	if len(r.obs.calls) != 1 || len(r.obs.rejections) != 0 {
		t.Fatalf("observed %+v and rejections %+v", r.obs.calls, r.obs.rejections)
	}
	ev := r.obs.calls[0]
	if ev.Thread != thread || ev.CallID != "call_1" || ev.Kind != "worker" || ev.Interpreter != "python3" || ev.ScriptRef != "@shell/call_1" ||
		ev.Tool != "" || ev.ModelBytes != len(input) || ev.CarrierBytes != len(carrier) || ev.Body != input || ev.Time.IsZero() {
		t.Fatalf("call event %+v", ev)
	}
}

// Every event that is not one of the model's calls in scope passes byte
// for byte, whatever its framing: the rewrite reads such an event for its
// head and writes back its Raw.
func TestStreamPassesOtherEventsByteIdentical(t *testing.T) {
	flat := request.Info{Owned: true}
	unowned := request.Info{Namespace: "functions"}
	cases := []struct {
		name  string
		facts request.Info
		body  func(u *upstream)
		raw   string // written after body
	}{
		{name: "message", facts: owned, body: func(u *upstream) { u.created(); u.completed(u.message(0, "msg_1", "hello")) }},
		{name: "shell call of an unowned request", facts: unowned, body: func(u *upstream) {
			u.completed(u.call(0, "ctc_1", "call_1", "functions", "shell", "ls\n"))
		}},
		{name: "shell in another namespace", facts: owned, body: func(u *upstream) {
			u.completed(u.call(0, "ctc_1", "call_1", "mcp", "shell", "ls\n"))
		}},
		{name: "exec in the functions namespace of a flat owner", facts: flat, body: func(u *upstream) {
			u.completed(u.call(0, "ctc_1", "call_1", "functions", "exec", "tools.exec_command({cmd:'ls'})"))
		}},
		{name: "tool the request did not offer", facts: owned, body: func(u *upstream) {
			u.completed(u.call(0, "ctc_1", "call_1", "functions", "fmt", "x"))
		}},
		{name: "model exec that calls no exec_command", facts: owned, body: func(u *upstream) {
			u.completed(u.call(0, "ctc_1", "call_1", "functions", "exec", "text('hi')"))
		}},
		{name: "function_call named shell", facts: owned, body: func(u *upstream) {
			u.emit("response.output_item.done", `"output_index":0,"item":{"type":"function_call","call_id":"c","name":"shell","arguments":"{}"}`)
		}},
		{name: "framing the relay never rewrites", facts: owned, raw: ": keepalive\n\nevent: ping\n\nid: 7\r\nevent: response.output_text.delta\r\n" +
			"data:{\"type\":\"response.output_text.delta\",\r\ndata: \"delta\":\"x\"}\r\n\r\ndata: [DONE]\n\n" +
			"data: {\"sequence_number\":3}\n\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"cut"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			var up upstream
			if c.body != nil {
				c.body(&up)
			}
			in := up.String() + c.raw
			st := response.NewStream(r.session(c.facts))
			if got := relay(t, st, in); got != in {
				t.Fatalf("client got\n%q\nwant\n%q", got, in)
			}
			if st.Pending() != 0 || len(r.j.calls) != 0 || len(r.obs.rejections) != 0 {
				t.Fatalf("pending %d, deps asked %q, rejections %+v", st.Pending(), r.j.calls, r.obs.rejections)
			}
		})
	}
}

// step is what the client received for one event, and the calls
// pending after it.
type step struct {
	out     string
	pending int
}

// handleEach feeds body to st one event at a time.
func handleEach(t *testing.T, st *response.Stream, body string) []step {
	t.Helper()
	var steps []step
	for _, f := range strings.SplitAfter(body, "\n\n") {
		if f != "" {
			steps = append(steps, step{relay(t, st, f), st.Pending()})
		}
	}
	return steps
}

// A withheld call sends nothing until its item done, and Pending counts
// it meanwhile. Other events pass while a call is pending, but an event
// cut by the end of the stream is dropped then (it may be the call's).
func TestStreamWithholdsACallUntilItsItemDone(t *testing.T) {
	r := newRig(t)
	st := response.NewStream(r.session(owned))
	var up upstream
	up.call(0, "ctc_1", "call_1", "functions", "shell", "ls ", "-l\n")
	up.emit("response.output_item.added", `"output_index":1,"item":`+item("ctc_2", "call_2", "functions", "hpatch", "", "in_progress"))
	text := up.emit("response.output_text.delta", `"item_id":"msg_9","delta":"a"`)
	steps := handleEach(t, st, up.String())

	carrier := carrierEvents(0, 0, "ctc_1", "call_1", "functions", "run(direct|ls -l\n|false|)")
	want := []step{{"", 1}, {"", 1}, {"", 1}, {"", 1}, {carrier, 0}, {"", 1}, {text, 1}}
	if !slices.Equal(steps, want) {
		t.Fatalf("steps\n%+v\nwant\n%+v", steps, want)
	}
	if got := relay(t, st, strings.TrimSuffix(text, "\n\n")); got != "" || st.Pending() != 1 {
		t.Fatalf("the cut event of a stream with a pending call was sent: %q", got)
	}
	if r.j.count("translate") != 1 || r.j.count("metric hpatch") != 0 {
		t.Fatalf("deps asked %q", r.j.calls)
	}
}

// The carrier's three events take the numbers from the withheld added on;
// an event after them whose upstream number was used moves up, so the
// numbers stay strictly increasing. An item done that came without its
// added numbers the carrier from its own, and the events after it move.
func TestStreamRenumbersAfterTheCarrier(t *testing.T) {
	r := newRig(t)
	var up upstream
	up.emit("response.output_item.added", `"output_index":0,"item":`+item("ctc_1", "call_1", "functions", "shell", "", "in_progress"))
	up.emit("response.output_item.done", `"output_index":0,"item":`+item("ctc_1", "call_1", "functions", "shell", "ls\n", "completed"))
	up.emit("response.output_text.delta", `"item_id":"msg_1","delta":"a"`)
	up.emit("response.output_item.done", `"output_index":1,"item":`+item("ctc_2", "call_2", "functions", "shell", "pwd\n", "completed"))
	up.emit("response.output_text.delta", `"item_id":"msg_1","delta":"b"`)

	got := relay(t, response.NewStream(r.session(owned)), up.String())

	want := carrierEvents(0, 0, "ctc_1", "call_1", "functions", "run(direct|ls\n|false|)") +
		frame("response.output_text.delta", `{"type":"response.output_text.delta","sequence_number":3,"item_id":"msg_1","delta":"a"}`) +
		carrierEvents(4, 1, "ctc_2", "call_2", "functions", "run(direct|pwd\n|false|)") +
		frame("response.output_text.delta", `{"type":"response.output_text.delta","sequence_number":7,"item_id":"msg_1","delta":"b"}`)
	if got != want {
		t.Fatalf("client got\n%s\nwant\n%s", got, want)
	}
}

// An upstream that sends one call's item done twice gets one carrier:
// the first stands, the second is dropped, and nothing stays pending.
func TestStreamRepeatedCallGetsOneCarrier(t *testing.T) {
	r := newRig(t)
	var up upstream
	up.call(0, "ctc_1", "call_1", "functions", "shell", "ls\n")
	up.emit("response.output_item.done", `"output_index":0,"item":`+item("ctc_1", "call_1", "functions", "shell", "rm -rf /\n", "completed"))
	st := response.NewStream(r.session(owned))
	evs := parse(t, relay(t, st, up.String()))
	if len(evs) != 3 || st.Pending() != 0 || r.j.count("translate") != 1 || !strings.Contains(evs[2].data, "run(direct|ls\\n|false|)") {
		t.Fatalf("sent %q, pending %d, deps asked %q", evs, st.Pending(), r.j.calls)
	}
}

// A model exec call that calls tools.exec_command is not withheld: its
// input done and item done carry the annotated input, in the namespace
// the model gave, and the annotation is counted once.
func TestStreamAnnotatesModelExec(t *testing.T) {
	r := newRig(t)
	var up upstream
	js := "tools.exec_command({cmd:'ls'})"
	done := up.call(0, "ctc_1", "call_1", "", "exec", js)
	up.completed(done)
	evs := parse(t, relay(t, response.NewStream(r.session(owned)), up.String()))
	wantTypes := []string{"response.output_item.added", "response.custom_tool_call_input.delta", "response.custom_tool_call_input.done", "response.output_item.done", "response.completed"}
	var types []string
	for _, e := range evs {
		types = append(types, e.name)
	}
	if !slices.Equal(types, wantTypes) {
		t.Fatalf("event types %q", types)
	}
	annotatedItem := item("ctc_1", "call_1", "", "exec", annotation+js, "completed")
	if !strings.Contains(evs[1].data, `"delta":"`+js+`"`) || !strings.Contains(evs[2].data, `"input":"`+annotation+js+`"`) ||
		!strings.Contains(evs[3].data, annotatedItem) || !strings.Contains(evs[4].data, annotatedItem) {
		t.Fatalf("events %q", evs)
	}
	if r.j.count("metric exec-annotated") != 1 || r.j.count("metric carrier") != 1 {
		t.Fatalf("deps asked %q", r.j.calls)
	}
}

// An event that is not JSON data passes even inside a withheld call.
func TestStreamHandleLeavesNonJSONData(t *testing.T) {
	r := newRig(t)
	st := response.NewStream(r.session(owned))
	ev := &sse.Event{Raw: []byte("data: [DONE]\n\n"), Data: []byte("[DONE]"), HasData: true, Complete: true}
	if got := string(st.Handle(ev, []byte("before;"))); got != "before;data: [DONE]\n\n" {
		t.Fatalf("got %q", got)
	}
}
