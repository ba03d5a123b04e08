package router

import (
	"bufio"
	"context"
	"io"
	"maps"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"hpatch-router/retain"

	"hpatch-router/router/history"
	"hpatch-router/router/request"
)

// carrierInput is the input of the carrier item out holds for callID.
func carrierInput(t testing.TB, out []byte, callID string) string {
	t.Helper()
	for _, ev := range parseEvents(t, out) {
		item, _ := ev.data["item"].(map[string]any)
		if ev.name == "response.output_item.done" && item["call_id"] == callID {
			return item["input"].(string)
		}
	}
	t.Fatalf("no carrier for %s in\n%s", callID, out)
	return ""
}

// oneCall is a response that holds one custom tool call.
func oneCall(id, callID, name, input string) string {
	s := &stream{}
	s.created()
	s.call(id, callID, name, "functions", input, 1)
	s.completed()
	return s.String()
}

// A call sent again (a retrying proxy, a replayed stream, an upstream that
// repeats itself) gets the carrier sent the first time: no new
// translation, no second retention, no second edit, whose stale rejection
// would otherwise replace the report. The item id may differ.
func TestRepeatedCallGetsTheSameCarrier(t *testing.T) {
	for _, tc := range []struct{ name, tool, input string }{
		{"shell", "shell", "#!python3\nprint(1)\n"},
		{"hpatch", "hpatch", "in @shell/call_0\ntype 1:abcd \"x\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scripts := newFakeScripts()
			rt := newTestRouter(t, WithScripts(scripts), StateDir(t.TempDir()))
			facts := request.Info{Owned: true, Namespace: "functions"}
			first := carrierInput(t, rewriteStream(t, rt, "thread-1", facts, oneCall("ctc_1", "call_1", tc.tool, tc.input)), "call_1")
			again := carrierInput(t, rewriteStream(t, rt, "thread-1", facts, oneCall("ctc_9", "call_1", tc.tool, tc.input)), "call_1")
			if again != first {
				t.Fatalf("carrier sent again\n%s\nwant the first one\n%s", again, first)
			}
			if len(scripts.staged) != 1 {
				t.Fatalf("%d retentions and edits staged for one call sent twice", len(scripts.staged))
			}
			// Another thread's call of the same id is its own call.
			rewriteStream(t, rt, "thread-2", facts, oneCall("ctc_1", "call_1", tc.tool, tc.input))
			if len(scripts.staged) != 2 {
				t.Fatal("a call of another thread was answered from this thread's carriers")
			}
		})
	}
}

// A different call under a call_id the thread knows gets its own carrier,
// and every carrier the router sent restores to the item it stood for,
// in this router and in one restarted on the same state directory: a
// request is never refused for echoing a carrier this router produced.
func TestEveryCarrierOfACallIDRestores(t *testing.T) {
	dir := t.TempDir()
	scripts := newFakeScripts()
	rt := newTestRouter(t, WithScripts(scripts), StateDir(dir))
	facts := request.Info{Owned: true, Namespace: "functions"}
	inputs := []string{"#!python3\nprint(1)\n", "#!python3\nprint(2)\n", "echo three"}
	var carriers, items []string
	for i, in := range inputs {
		s := &stream{}
		s.created()
		items = append(items, s.call("ctc_"+string(rune('a'+i)), "call_1", "shell", "functions", in, 1))
		s.completed()
		carriers = append(carriers, carrierInput(t, rewriteStream(t, rt, "thread-1", facts, s.String()), "call_1"))
	}
	if carriers[0] == carriers[1] || carriers[1] == carriers[2] {
		t.Fatalf("different calls got one carrier: %q", carriers)
	}
	rt2 := newTestRouter(t, WithScripts(scripts), StateDir(dir))
	for _, r := range []*Router{rt, rt2} {
		for i, c := range carriers {
			body := `{"input":[` + echoOf("ctc_x", "call_1", "functions", c) + `]}`
			got, err := r.restoreReplay("thread-1", []byte(body))
			if err != nil {
				t.Fatalf("carrier %d: %v", i, err)
			}
			if want := `{"input":[` + items[i] + `]}`; string(got) != want {
				t.Fatalf("carrier %d restored to\n%s\nwant\n%s", i, got, want)
			}
		}
		body := `{"input":[` + echoOf("ctc_x", "call_1", "functions", "not a carrier the router sent") + `]}`
		if _, err := r.restoreReplay("thread-1", []byte(body)); errCode(err) != history.CodeReplayMismatch {
			t.Fatalf("an input the router never sent: %v, want %s", err, history.CodeReplayMismatch)
		}
	}
	if !strings.Contains(carriers[2], "echo three") {
		t.Fatalf("the third carrier is not the third call's: %q", carriers[2])
	}
}

// settle reads what became of each staged call from the request input:
// an output that is not "aborted" ran, Codex's "aborted" (a string or one
// text item) did not, a call without its output is pending, and a call
// missing from the input is gone, unless a response of the thread is
// still streaming.
func TestSettleReadsTheInput(t *testing.T) {
	out := func(id, output string) string {
		return `{"type":"custom_tool_call_output","call_id":"` + id + `","output":` + output + `}`
	}
	body := `{"input":[` + strings.Join([]string{
		echoOf("ctc_1", "call_ran", "functions", "c"), out("call_ran", `[{"type":"input_text","text":"Script completed\n"},{"type":"input_text","text":"aborted"}]`),
		echoOf("ctc_2", "call_str", "functions", "c"), out("call_str", `"aborted"`),
		echoOf("ctc_3", "call_arr", "functions", "c"), out("call_arr", `[{"type":"input_text","text":"aborted"}]`),
		echoOf("ctc_4", "call_wait", "functions", "c"),
	}, ",") + `]}`
	want := map[string]retain.CallState{
		"call_ran": retain.CallRan, "call_str": retain.CallAborted, "call_arr": retain.CallAborted,
		"call_wait": retain.CallPending, "call_gone": retain.CallGone,
	}
	scripts := newFakeScripts()
	scripts.staged = []string{"call_ran", "call_str", "call_arr", "call_wait", "call_gone"}
	rt := newTestRouter(t, WithScripts(scripts))
	req, err := request.Parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	rt.history.Apply(context.Background(), history.Turn{Thread: "thread-1", Req: req})
	if !maps.Equal(scripts.settled, want) {
		t.Fatalf("settled %v, want %v", scripts.settled, want)
	}
	rt.history.Apply(context.Background(), history.Turn{Thread: "thread-1", Req: req, Streaming: true})
	if scripts.settled["call_gone"] != retain.CallPending {
		t.Fatalf("a call missing while the thread streams is %v, want pending", scripts.settled["call_gone"])
	}
	scripts.settled = nil
	rt.history.Apply(context.Background(), history.Turn{Req: req})
	if scripts.settled != nil {
		t.Fatal("a request without a thread settled something")
	}
	rt.history.Apply(context.Background(), history.Turn{Thread: "thread-1"})
	if scripts.settled != nil {
		t.Fatal("a body that did not parse settled something")
	}
}

// A carrier the router sent, echoed when its journal entry is gone (an old
// conversation resumed), cannot be restored: it is warned about and
// counted once per call, and the request still goes through. A model's own
// exec is not a router carrier.
func TestUnrestorableCarrierIsCounted(t *testing.T) {
	rt := newTestRouter(t, StateDir(t.TempDir()))
	carrier := `const result = await tools.exec_command({"cmd":"shell -e python3 'print(1)\\n'","login":false});`
	body := `{"input":[` + echoOf("ctc_1", "call_lost", "functions", carrier) + "," +
		echoOf("ctc_2", "call_model", "functions", `text("hi");`) + `]}`
	for range 2 {
		got, err := rt.restoreReplay("thread-1", []byte(body))
		if err != nil || string(got) != body {
			t.Fatalf("request changed or refused: %v\n%s", err, got)
		}
	}
	var out strings.Builder
	rt.metrics.write(&out)
	if !strings.Contains(out.String(), `hpatch_router_replay_total{outcome="unrestorable"} 1`+"\n") {
		t.Fatalf("unrestorable not counted once:\n%s", out.String())
	}
}

// A request that arrives while a response of its thread still streams
// takes no staged call as gone (the streaming response's calls are in no
// request yet); once that response has ended, the next request does.
func TestSettleWaitsWhileTheThreadStreams(t *testing.T) {
	s := &stream{}
	s.created()
	s.message("msg_1", "hello")
	release := make(chan struct{})
	var first atomic.Bool
	h := newHarness(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		if first.CompareAndSwap(false, true) {
			io.WriteString(w, s.frames[0])
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		io.WriteString(w, strings.Join(s.frames, ""))
	}, WithScripts(newFakeScripts()))
	scripts := h.router.cfg.scripts.(*fakeScripts)
	scripts.staged = []string{"call_gone"}
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	streaming := h.post(ownedRequest(), "Thread-Id", "thread-1")
	defer streaming.Body.Close()
	if _, err := readEvent(bufio.NewReader(streaming.Body)); err != nil {
		t.Fatal(err)
	}
	readAll(t, h.post(ownedRequest(), "Thread-Id", "thread-1"))
	if got := scripts.settled["call_gone"]; got != retain.CallPending {
		t.Fatalf("a call missing while its thread streams is %v, want pending", got)
	}
	close(release)
	readAll(t, streaming)
	readAll(t, h.post(ownedRequest(), "Thread-Id", "thread-1"))
	if got := scripts.settled["call_gone"]; got != retain.CallGone {
		t.Fatalf("a call missing once its thread's response ended is %v, want gone", got)
	}
}
