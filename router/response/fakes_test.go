package response_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"hpatch-router/retain"
	"hpatch-router/router/request"
	"hpatch-router/router/response"
	"hpatch-router/router/sse"
	"hpatch-router/router/threadstate"
	"hpatch-router/shebang"
)

// The fakes below stand for the router's parts in Deps. Each one writes
// what it was asked into one shared journal, in call order, so a test
// can assert both what the session asked and when (the runtime before
// the first worker carrier, a rejection counted before it is rendered).
type journal struct{ calls []string }

func (j *journal) add(call string) { j.calls = append(j.calls, call) }

// count is how many journal entries equal call.
func (j *journal) count(call string) int {
	n := 0
	for _, c := range j.calls {
		if c == call {
			n++
		}
	}
	return n
}

// translator pins carrier text so a test reads what the session decided,
// not how shebang spells a carrier: "#!fail" is refused on line 2, any
// other "#!NAME" input is a retainable worker plan of interpreter NAME,
// everything else a direct plan.
type translator struct{ j *journal }

func (tr translator) Translate(input string, params []shebang.Param) (*shebang.Plan, error) {
	tr.j.add("translate")
	if strings.HasPrefix(input, "#!fail") {
		return nil, &shebang.Diagnostic{Line: 2, Msg: "cannot run `secret-body`"}
	}
	if first, _, _ := strings.Cut(input, "\n"); strings.HasPrefix(first, "#!") {
		return &shebang.Plan{Kind: shebang.KindWorker, Interpreter: first[2:], Body: input, Retainable: true}, nil
	}
	return &shebang.Plan{Kind: shebang.KindDirect, Interpreter: "bash", Body: input}, nil
}

func (tr translator) Carrier(p *shebang.Plan, r shebang.Retention) string {
	tr.j.add("carrier")
	return "run(" + string(p.Kind) + "|" + p.Body + "|" + strconv.FormatBool(r.Retained) + "|" + r.ScriptRef + ")"
}

func (tr translator) Rejection(err error) string { return "refuse(" + err.Error() + ")" }

func (tr translator) Retains(carrier, ref string) bool {
	return strings.HasSuffix(carrier, "|true|"+ref+")")
}

func (tr translator) ScriptReference(input string) (string, bool) {
	id, ok := strings.CutPrefix(input, "#!script=@shell/")
	return id, ok && !strings.ContainsAny(id, " \n")
}

// annotation is what the fake AnnotateExec puts before model exec
// JavaScript that calls tools.exec_command.
const annotation = "/*use shell*/"

func (tr translator) AnnotateExec(js string) (string, bool) {
	if !strings.Contains(js, "tools.exec_command") || strings.HasPrefix(js, annotation) {
		return js, false
	}
	return annotation + js, true
}

// scripts is an in-memory retained-script store: Stage keeps content by
// call id, StageEdit reports report on any edit but one starting "stale".
type scripts struct {
	j        *journal
	retained map[string]string // call id → content
	edits    map[string]string // call id → patch
	report   string
}

func newScripts(j *journal) *scripts {
	return &scripts{j: j, retained: map[string]string{}, edits: map[string]string{}, report: editReport}
}

func (s *scripts) Stage(_ context.Context, thread, id, content string) (string, error) {
	s.j.add("stage " + thread + " " + id)
	s.retained[id] = content
	return "@shell/" + id, nil
}

func (s *scripts) Resolve(_ context.Context, thread, ref string) (string, error) {
	s.j.add("resolve " + thread + " " + ref)
	c, ok := s.retained[strings.TrimPrefix(ref, "@shell/")]
	if !ok {
		return "", errors.New(ref + " is not retained")
	}
	return c, nil
}

// editReport is what the fake StageEdit reports for a checked edit
// unless a test says otherwise.
const editReport = "@shell/call_0 1:ab12 edited\n<new> & \"quoted\""

func (s *scripts) StageEdit(_ context.Context, thread, callID, patch string) (string, error) {
	s.j.add("stage-edit " + thread + " " + callID)
	if strings.HasPrefix(patch, "stale") {
		return "", errors.New("line 3: the row changed\nnow: x = 1")
	}
	s.edits[callID] = patch
	return s.report, nil
}

func (s *scripts) StagedCall(_, callID string) bool {
	_, r := s.retained[callID]
	_, e := s.edits[callID]
	return r || e
}

func (s *scripts) Settle(_ context.Context, thread string, state func(string) retain.CallState) []retain.Committed {
	s.j.add("settle " + thread)
	return nil
}

// runtime answers every Ensure with err.
type runtime struct {
	j   *journal
	err error
}

func (r *runtime) Ensure(_ context.Context, thread string) error {
	r.j.add("ensure " + thread)
	return r.err
}

type metrics struct{ j *journal }

func (m metrics) Carrier()             { m.j.add("metric carrier") }
func (m metrics) HpatchCall()          { m.j.add("metric hpatch") }
func (m metrics) ToolCall(name string) { m.j.add("metric tool " + name) }
func (m metrics) ExecAnnotated()       { m.j.add("metric exec-annotated") }
func (m metrics) Rejection(reason string) {
	m.j.add("metric rejection " + reason)
}
func (m metrics) Replay(outcome string) { m.j.add("metric replay " + outcome) }
func (m metrics) ShellCall(kind, interpreter string, warnings int) {
	m.j.add("metric shell " + kind + " " + interpreter + " " + strconv.Itoa(warnings))
}

// observers keeps every event; a rejection is observed whether or not
// anyone listens (Active only spares building call events).
type observers struct {
	active     bool
	calls      []response.CallEvent
	rejections []response.RejectionEvent
}

func (o *observers) Active() bool                      { return o.active }
func (o *observers) ShellCall(e response.CallEvent)    { o.calls = append(o.calls, e) }
func (o *observers) Observe(e response.RejectionEvent) { o.rejections = append(o.rejections, e) }

// thread is the thread id every rig's session runs in.
const thread = "thread-1"

// rig is one router's worth of Deps: the fakes and a real thread state
// store in a temporary directory.
type rig struct {
	j       *journal
	dir     string // the store's state directory
	scripts *scripts
	runtime *runtime
	obs     *observers
	store   *threadstate.Store
	deps    *response.Deps
}

func newRig(t *testing.T) *rig {
	t.Helper()
	dir := t.TempDir()
	store, err := threadstate.Open(dir, threadstate.DefaultLimits(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := store.Close(); err != nil {
			t.Error(err)
		}
	})
	j := &journal{}
	r := &rig{j: j, dir: dir, scripts: newScripts(j), runtime: &runtime{j: j}, obs: &observers{active: true}, store: store}
	r.deps = &response.Deps{Store: store, Translator: translator{j}, Scripts: r.scripts, Runtime: r.runtime,
		Metrics: metrics{j}, Observers: r.obs, Log: slog.New(slog.DiscardHandler)}
	return r
}

// owned is the facts of a request with a Code Mode owner in the
// functions namespace (Codex ≥0.147), offering no declared tool.
var owned = request.Info{Owned: true, Namespace: "functions"}

// session starts the rewrite of one response of thread with facts.
func (r *rig) session(facts request.Info) *response.Session {
	return response.New(context.Background(), r.deps, thread, facts, response.Turn{})
}

// relay passes a whole upstream body through st, as the router's relay
// does, and returns what the client receives.
func relay(t *testing.T, st *response.Stream, body string) string {
	t.Helper()
	rd := sse.NewReader(strings.NewReader(body), 1<<20)
	var out []byte
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			return string(out)
		}
		if err != nil {
			t.Fatal(err)
		}
		out = st.Handle(ev, out)
	}
}

// event is one parsed event of what the client receives.
type event struct{ name, data string }

func parse(t *testing.T, body string) []event {
	t.Helper()
	rd := sse.NewReader(strings.NewReader(body), 1<<20)
	var evs []event
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			return evs
		}
		if err != nil {
			t.Fatal(err)
		}
		if !ev.Complete {
			t.Fatalf("the client got a cut event %q", ev.Raw)
		}
		evs = append(evs, event{ev.Name, string(ev.Data)})
	}
}
