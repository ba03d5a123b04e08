package router

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"hpatch-router/router/request"
)

func TestSSERewriteCompletedOnly(t *testing.T) {
	// A call seen only in response.completed (no output_item.done) still
	// becomes a carrier there, and is stored for replay.
	item := callItem("ctc_1", "call_1", "shell", "functions", "ls", "completed")
	in := "data: {\"type\":\"response.completed\",\"response\":{\"output\":[" + item + "]},\"sequence_number\":0}\n\n"
	rt := newTestRouter(t)
	out := rewriteStream(t, rt, "th", request.Info{Owned: true, Namespace: "functions"}, in)
	want := strings.Replace(in, item, callItem("ctc_1", "call_1", "exec", "functions", "carrier(direct|ls|false|)", "completed"), 1)
	if string(out) != want {
		t.Fatalf("got %s", out)
	}
	if e, ok := stored(rt, "th", "call_1"); !ok || e.Item != item {
		t.Fatalf("replay %+v", e)
	}
}

// TestSSERewriteIncompleteResponse: response.incomplete ends a response
// as response.completed does: it reaches Codex once, last, with its
// details, and its output lists the carrier in place of the model's call
// (stored for replay), whether the call came in output_item.done first or
// only there.
func TestSSERewriteIncompleteResponse(t *testing.T) {
	for _, tc := range []struct {
		name     string
		itemDone bool
	}{{"after output_item.done", true}, {"only in response.incomplete", false}} {
		t.Run(tc.name, func(t *testing.T) {
			s := &stream{}
			item := callItem("ctc_1", "call_1", "shell", "functions", "ls", "completed")
			if tc.itemDone {
				item = s.call("ctc_1", "call_1", "shell", "functions", "ls", 1)
			}
			s.event("response.incomplete", `"response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[`+item+`]}`)
			rt := newTestRouter(t)
			out := rewriteStream(t, rt, "th", request.Info{Owned: true, Namespace: "functions"}, s.String())
			checkNoModelTools(t, out)
			evs := parseEvents(t, out)
			checkSequence(t, evs)
			var ends []parsedEvent
			for _, e := range evs {
				if e.data["type"] == "response.incomplete" {
					ends = append(ends, e)
				}
			}
			if len(ends) != 1 || evs[len(evs)-1].raw != ends[0].raw {
				t.Fatalf("want one response.incomplete, last; got %d in\n%s", len(ends), out)
			}
			end := gjson.Parse(rawData(ends[0]))
			carrier := callItem("ctc_1", "call_1", "exec", "functions", "carrier(direct|ls|false|)", "completed")
			if got := end.Get("response.output.0").Raw; got != carrier {
				t.Errorf("response.incomplete output %s, want the carrier %s", got, carrier)
			}
			if got := end.Get("response.incomplete_details.reason").String(); got != "max_output_tokens" {
				t.Errorf("incomplete_details lost: %s", end.Raw)
			}
			if e, ok := stored(rt, "th", "call_1"); !ok || e.Item != item {
				t.Errorf("replay entry %+v, want the model's item", e)
			}
		})
	}
}

func TestSSERewriteRuntimeFailure(t *testing.T) {
	rtm := &fakeRuntime{err: errors.New("disk full")}
	rt := newTestRouter(t, WithRuntime(rtm))
	s := &stream{}
	s.call("ctc_1", "call_1", "shell", "functions", pyInput, 1)
	s.call("ctc_2", "call_2", "shell", "functions", "#!node\n1", 1)
	s.call("ctc_3", "call_3", "shell", "functions", "ls", 1)
	s.completed()
	evs := parseEvents(t, rewriteStream(t, rt, "th", request.Info{Owned: true, Namespace: "functions"}, s.String()))
	for _, id := range []string{"ctc_1", "ctc_2"} {
		got := eventsOf(evs, "response.custom_tool_call_input.done", id)[0].data["input"].(string)
		if !strings.HasPrefix(got, "rejected(the router could not prepare") {
			t.Fatalf("%s: %q", id, got)
		}
	}
	if got := eventsOf(evs, "response.custom_tool_call_input.done", "ctc_3")[0].data["input"]; got != "carrier(direct|ls|false|)" {
		t.Fatalf("direct call affected: %q", got)
	}
	if len(rtm.calls) != 1 {
		t.Fatalf("PrepareThread called %d times", len(rtm.calls))
	}
}

func TestSSERewriteScriptReferenceWithoutStore(t *testing.T) {
	for _, tc := range []struct {
		thread string
		opts   []Option
		want   string
	}{
		{"th", nil, "not available"},
		{"", []Option{WithScripts(newFakeScripts())}, "no thread id"},
		{"th", []Option{WithScripts(newFakeScripts())}, "does not exist"},
	} {
		s := &stream{}
		s.call("ctc_1", "call_1", "shell", "functions", "#!script=@shell/call_0", 1)
		s.completed()
		evs := parseEvents(t, rewriteStream(t, newTestRouter(t, tc.opts...), tc.thread, request.Info{Owned: true, Namespace: "functions"}, s.String()))
		if got := eventsOf(evs, "response.custom_tool_call_input.done", "ctc_1")[0].data["input"].(string); !strings.Contains(got, tc.want) {
			t.Fatalf("%q lacks %q", got, tc.want)
		}
	}
}

func TestServeJSONFaults(t *testing.T) {
	t.Run("JSON response over the bound", func(t *testing.T) {
		h := newHarness(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"output":[],"pad":"`+strings.Repeat("x", 2048)+`"}`)
		}, withMaxEventSize(1024))
		wantRouterError(t, h.post(ownedRequest()), 502, "response_too_large")
	})
	t.Run("JSON without shell calls is relayed byte for byte", func(t *testing.T) {
		const body = `{"id":"r", "output":[{"type":"message","content":[]}]}`
		h := newHarness(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			io.WriteString(w, body)
		})
		if got := readAll(t, h.post(ownedRequest())); got != body {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("encoded upstream responses are relayed without rewrite", func(t *testing.T) {
		h := newHarness(t, func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Accept-Encoding") != "" {
				t.Errorf("rewrite path asked for an encoding: %q", r.Header.Get("Accept-Encoding"))
			}
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Content-Encoding", "br")
			io.WriteString(w, "opaque")
		})
		resp := h.post(ownedRequest(), "Accept-Encoding", "br")
		if got := readAll(t, resp); got != "opaque" || resp.Header.Get("Content-Encoding") != "br" {
			t.Fatalf("got %q %v", got, resp.Header)
		}
	})
	// The same stream of a shell call is rewritten when its encoding is
	// identity and relayed byte for byte when it names any other.
	for _, c := range []struct {
		encoding  string
		rewritten bool
	}{{"", true}, {"identity", true}, {"Identity", true}, {"zstd", false}, {"br", false}} {
		t.Run("a shell call with Content-Encoding "+c.encoding, func(t *testing.T) {
			s := &stream{}
			s.call("ctc_1", "call_1", "shell", "functions", "echo hi", 1)
			s.completed()
			h := newHarness(t, func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				if c.encoding != "" {
					w.Header().Set("Content-Encoding", c.encoding)
				}
				io.WriteString(w, s.String())
			})
			got := readAll(t, h.post(ownedRequest()))
			if rewritten := got != s.String(); rewritten != c.rewritten {
				t.Fatalf("rewritten %v, want %v:\n%s", rewritten, c.rewritten, got)
			}
			if faults := strings.Contains(readAll(t, h.do(mustReq("GET", h.front.URL+"/metrics"))), `hpatch_router_faults_total{kind="encoded_response_passthrough"} 1`); faults == c.rewritten {
				t.Fatalf("encoded_response_passthrough counted: %v, want %v", faults, !c.rewritten)
			}
		})
	}
}

func TestSSERewriteAnnotatesOnlyOwnedExec(t *testing.T) {
	js := `await tools.exec_command({cmd:"ls"})`
	s := &stream{}
	s.call("ctc_o", "call_o", "exec", "other", js, 1)
	s.call("ctc_p", "call_p", "apply_patch", "functions", js, 1)
	s.completed()
	out := rewriteStream(t, newTestRouter(t), "th", request.Info{Owned: true, Namespace: "functions"}, s.String())
	if string(out) != s.String() {
		t.Fatalf("calls outside the owner changed:\n%s", out)
	}
}
