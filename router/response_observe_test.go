package router

import (
	"net/http"
	"strings"
	"testing"

	"hpatch-router/router/request"
)

func TestResponseObserverEvents(t *testing.T) {
	for _, bodies := range []bool{false, true} {
		o := &recordingObserver{}
		rt := newTestRouter(t, WithObserver(o), WithObserverBodies(bodies), WithScripts(newFakeScripts()))
		s := &stream{}
		s.call("ctc_1", "call_1", "shell", "functions", pyInput, 2)
		s.call("ctc_2", "call_2", "shell", "functions", "#!bad\nx", 1)
		s.call("ctc_3", "call_3", "hpatch", "functions", "fail", 1)
		s.completed()
		rewriteStream(t, rt, "th", request.Info{Owned: true, Namespace: "functions"}, s.String())
		if len(o.calls) != 1 { // the rejected call counts once, as a rejection
			t.Fatalf("calls %+v", o.calls)
		}
		c := o.calls[0]
		if c.Thread != "th" || c.CallID != "call_1" || c.Kind != "worker" || c.Interpreter != "python3" ||
			c.ScriptRef != "@shell/call_1" || c.ModelBytes != len(pyInput) || c.CarrierBytes == 0 || c.Time.IsZero() {
			t.Fatalf("call event %+v", c)
		}
		if (c.Body == pyInput) != bodies {
			t.Fatalf("body %q with bodies=%v", c.Body, bodies)
		}
		if len(o.rejs) != 2 || o.rejs[0].Code != "translate" || o.rejs[0].CallID != "call_2" || o.rejs[1].Code != "hpatch" ||
			o.rejs[1].CallID != "call_3" || strings.Contains(o.rejs[1].Reason+o.rejs[1].Detail, "\n") {
			t.Fatalf("rejections %+v", o.rejs)
		}
		// The diagnostic reaches observers only with bodies.
		if got := strings.Contains(o.rejs[0].Reason+o.rejs[0].Detail, "bad selector"); got != bodies {
			t.Fatalf("bodies=%v: rejection %+v", bodies, o.rejs[0])
		}
	}
}

func TestResponseObserverLayoutRejection(t *testing.T) {
	o := &recordingObserver{}
	h := newHarness(t, func(w http.ResponseWriter, r *http.Request) { t.Error("forwarded") }, WithObserver(o))
	twoOwners := `{"input":[{"type":"additional_tools","tools":[{"type":"custom","name":"exec","description":"exec_command"},` +
		`{"type":"namespace","name":"functions","tools":[{"type":"custom","name":"exec","description":"exec_command"}]}]}]}`
	wantRouterError(t, h.post(twoOwners, "Thread-Id", "t9"), 400, request.CodeDuplicateExecOwner)
	if len(o.rejs) != 1 || o.rejs[0].Code != request.CodeDuplicateExecOwner || o.rejs[0].Thread != "t9" {
		t.Fatalf("rejections %+v", o.rejs)
	}
}
