package router

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"hpatch-router/router/request"
	"hpatch-router/router/response"
)

// TestOneCarrierPerCall (issue 33 case 9): an upstream that sends a
// shell/hpatch call's output_item.done twice in one response, or lists the
// call twice in its output, gets one carrier relayed, for the first input:
// Codex must run the call once. A repeat with another input is logged
// once; a repeat with the same input is not.
func TestOneCarrierPerCall(t *testing.T) {
	for _, tc := range []struct {
		name        string
		second      string // the repeat's input
		sameItemID  bool
		json        bool // a non-streaming response listing both
		wantWarning bool
	}{
		{name: "same input, same item id", second: "ls", sameItemID: true},
		{name: "same input, another item id", second: "ls"},
		{name: "another input", second: "rm -rf x", sameItemID: true, wantWarning: true},
		{name: "json: same input", second: "ls", json: true},
		{name: "json: another input", second: "rm -rf x", json: true, wantWarning: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			rt := newTestRouter(t, Logger(slog.New(slog.NewTextHandler(&logs, nil))))
			facts := request.Info{Owned: true, Namespace: "functions"}
			secondID := "ctc_2"
			if tc.sameItemID {
				secondID = "ctc_1"
			}
			first := callItem("ctc_1", "call_1", "shell", "functions", "ls", "completed")
			second := callItem(secondID, "call_1", "shell", "functions", tc.second, "completed")
			var out []byte
			if tc.json {
				s := response.New(t.Context(), &rt.responseDeps, "th", facts, response.Turn{})
				out, _ = s.RewriteOutput([]byte(`{"id":"resp_1","output":[`+first+`,`+second+`]}`), "output")
			} else {
				s := &stream{}
				s.created()
				s.call("ctc_1", "call_1", "shell", "functions", "ls", 1)
				s.idx-- // the repeat comes at the same output index
				s.call(secondID, "call_1", "shell", "functions", tc.second, 2)
				s.items = s.items[:1]
				s.completed()
				out = rewriteStream(t, rt, "th", facts, s.String())
				checkNoModelTools(t, out)
				checkSequence(t, parseEvents(t, out))
			}
			carrier := "carrier(direct|ls|false|)"
			if n := strings.Count(string(out), `"type":"response.custom_tool_call_input.done"`); !tc.json && n != 1 {
				t.Errorf("%d custom_tool_call_input.done events, want 1:\n%s", n, out)
			}
			done := 0
			for _, ev := range eventsOrDoc(t, out, tc.json) {
				items := []gjson.Result{ev.Get("item")}
				if tc.json {
					items = ev.Get("output").Array()
				}
				for _, it := range items {
					if it.Get("call_id").String() != "call_1" || (!tc.json && ev.Get("type").String() != "response.output_item.done") {
						continue
					}
					done++
					if it.Get("input").String() != carrier {
						t.Errorf("carrier input %q, want the first call's %q", it.Get("input").String(), carrier)
					}
				}
			}
			if done != 1 {
				t.Errorf("%d carriers for call_1, want 1:\n%s", done, out)
			}
			if got := strings.Count(logs.String(), "the first one stands"); got != map[bool]int{true: 1, false: 0}[tc.wantWarning] {
				t.Errorf("%d warnings, want warning=%v:\n%s", got, tc.wantWarning, logs.String())
			}
		})
	}
}

// eventsOrDoc is the data of each event of an SSE body, or the JSON
// document itself.
func eventsOrDoc(t *testing.T, out []byte, isJSON bool) []gjson.Result {
	t.Helper()
	if isJSON {
		return []gjson.Result{gjson.ParseBytes(out)}
	}
	var res []gjson.Result
	for _, ev := range parseEvents(t, out) {
		res = append(res, gjson.Parse(rawData(ev)))
	}
	return res
}
