package router

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"hpatch-router/retain"
	"hpatch-router/shebang"

	"hpatch-router/router/request"
	"hpatch-router/router/response"
	"hpatch-router/router/sse"
)

// fakeTranslator pins carrier text so rewrite tests do not depend on the
// translation rules: inputs starting "#!bad" reject, "#!" inputs are worker
// plans (retainable), anything else is direct.
type fakeTranslator struct{}

func (fakeTranslator) Translate(input string, params []shebang.Param) (*shebang.Plan, error) {
	if strings.HasPrefix(input, "#!bad") {
		return nil, &shebang.Diagnostic{Line: 1, Msg: "bad selector"}
	}
	p := &shebang.Plan{Kind: shebang.KindDirect, Cmd: input, Interpreter: "bash"}
	if strings.HasPrefix(input, "#!") {
		line, _, _ := strings.Cut(input[2:], "\n")
		p.Kind, p.Interpreter, p.Retainable = shebang.KindWorker, strings.Fields(line)[0], true
	}
	if strings.Contains(input, "python3 -c") {
		p.Warnings = []string{"wrapper"}
	}
	if len(params) > 0 {
		p.Cmd += " params=" + strings.Join(shebang.ParamsShape{Params: params}.Names(), ",")
	}
	return p, nil
}

func (fakeTranslator) Carrier(p *shebang.Plan, r shebang.Retention) string {
	return fmt.Sprintf("carrier(%s|%s|%v|%s)", p.Kind, p.Cmd, r.Retained, r.ScriptRef)
}

func (fakeTranslator) Retains(carrier, ref string) bool {
	return strings.HasSuffix(carrier, "|true|"+ref+")")
}

func (fakeTranslator) Rejection(err error) string { return "rejected(" + err.Error() + ")" }

func (fakeTranslator) ScriptReference(input string) (string, bool) {
	if id, ok := strings.CutPrefix(input, "#!script=@shell/"); ok && !strings.Contains(id, "\n") {
		return id, true
	}
	return "", false
}

func (fakeTranslator) AnnotateExec(js string) (string, bool) {
	const notice = "text(\"notice: use shell\");\n"
	if !strings.Contains(js, "tools.exec_command") || strings.HasPrefix(js, notice) {
		return js, false
	}
	return notice + js, true
}

// fakeScripts is an in-memory Scripts: a staged retention is retained at
// once (Resolve sees it), an edit is recorded; Settle records the states
// its state function gives the staged calls.
type fakeScripts struct {
	retained map[string]string // thread/id → content
	staged   []string          // call ids, retentions and edits, in order
	applied  []string
	failRet  bool
	settled  map[string]retain.CallState
	restores [][]retain.Committed
	// reconciled holds the history of each Reconcile call.
	reconciled [][]retain.Committed
}

func newFakeScripts() *fakeScripts { return &fakeScripts{retained: map[string]string{}} }

func (f *fakeScripts) Stage(_ ctxT, thread, id, content string) (string, error) {
	if f.failRet {
		return "", errors.New("no")
	}
	f.staged = append(f.staged, id)
	f.retained[thread+"/"+id] = content
	return "@shell/" + id, nil
}

func (f *fakeScripts) Resolve(_ ctxT, thread, ref string) (string, error) {
	c, ok := f.retained[thread+"/"+strings.TrimPrefix(ref, "@shell/")]
	if !ok {
		return "", errors.New("shell: " + ref + " does not exist")
	}
	return c, nil
}

func (f *fakeScripts) StageEdit(_ ctxT, thread, callID, patch string) (string, error) {
	if strings.HasPrefix(patch, "fail") {
		return "", errors.New("line 1: no such target\nsecond line")
	}
	f.staged = append(f.staged, callID)
	f.applied = append(f.applied, patch)
	return "1:abcd edited", nil
}

func (f *fakeScripts) Staged(string) bool { return len(f.staged) > 0 }

func (f *fakeScripts) StagedCall(_, callID string) bool { return slices.Contains(f.staged, callID) }

func (f *fakeScripts) Settle(_ ctxT, _ string, state func(string) retain.CallState) []retain.Committed {
	f.settled = map[string]retain.CallState{}
	var ran []retain.Committed
	for _, id := range f.staged {
		if f.settled[id] = state(id); f.settled[id] == retain.CallRan {
			ran = append(ran, retain.Committed{Call: id, At: time.Now(), Retain: id, Content: f.retained["thread-1/"+id]})
		}
	}
	return ran
}

func (f *fakeScripts) Reconcile(_ ctxT, _ string, history []retain.Committed) ([]retain.Committed, map[string]string) {
	f.reconciled = append(f.reconciled, history)
	return history, nil
}

func (f *fakeScripts) Restore(_ ctxT, thread string, history []retain.Committed) int {
	f.restores = append(f.restores, history)
	return len(history)
}

// fakeRuntime records PrepareThread calls and answers err.
type fakeRuntime struct {
	calls []string
	err   error
}

func (f *fakeRuntime) PrepareThread(_ ctxT, thread string) error {
	f.calls = append(f.calls, thread)
	return f.err
}

// stream builds an upstream SSE body shaped like the Responses API (and
// like codex/captures/fake_upstream.py): event + data lines, a
// sequence_number on every event, a response.completed listing the
// completed items.
type stream struct {
	seq    int
	idx    int
	frames []string
	items  []string
	noName bool // omit the event: lines
}

func jstr(s string) string { b, _ := json.Marshal(s); return string(b) }

func (s *stream) event(typ, fields string) {
	data := `{"type":` + jstr(typ)
	if fields != "" {
		data += "," + fields
	}
	data += `,"sequence_number":` + strconv.Itoa(s.seq) + "}"
	s.seq++
	f := "data: " + data + "\n\n"
	if !s.noName {
		f = "event: " + typ + "\n" + f
	}
	s.frames = append(s.frames, f)
}

func (s *stream) created() {
	s.event("response.created", `"response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}`)
}

func callItem(id, callID, name, ns, input, status string) string {
	b := `{"type":"custom_tool_call","id":` + jstr(id) + `,"call_id":` + jstr(callID) + `,"name":` + jstr(name)
	if ns != "" {
		b += `,"namespace":` + jstr(ns)
	}
	return b + `,"input":` + jstr(input) + `,"status":` + jstr(status) + "}"
}

// call streams one custom tool call with its input split in deltas.
func (s *stream) call(id, callID, name, ns, input string, deltas int) string {
	oi := `"output_index":` + strconv.Itoa(s.idx)
	s.event("response.output_item.added", oi+`,"item":`+callItem(id, callID, name, ns, "", "in_progress"))
	size := max(1, (len(input)+deltas-1)/max(1, deltas))
	for i := 0; i < len(input); i += size {
		s.event("response.custom_tool_call_input.delta", `"item_id":`+jstr(id)+","+oi+`,"delta":`+jstr(input[i:min(len(input), i+size)]))
	}
	s.event("response.custom_tool_call_input.done", `"item_id":`+jstr(id)+","+oi+`,"input":`+jstr(input))
	done := callItem(id, callID, name, ns, input, "completed")
	s.event("response.output_item.done", oi+`,"item":`+done)
	s.items = append(s.items, done)
	s.idx++
	return done
}

func (s *stream) message(id, text string) {
	oi := `"output_index":` + strconv.Itoa(s.idx)
	s.event("response.output_item.added", oi+`,"item":{"type":"message","id":`+jstr(id)+`,"role":"assistant","status":"in_progress","content":[]}`)
	s.event("response.output_text.delta", `"item_id":`+jstr(id)+","+oi+`,"content_index":0,"delta":`+jstr(text))
	done := `{"type":"message","id":` + jstr(id) + `,"role":"assistant","status":"completed","content":[{"type":"output_text","text":` + jstr(text) + `,"annotations":[]}]}`
	s.event("response.output_item.done", oi+`,"item":`+done)
	s.items = append(s.items, done)
	s.idx++
}

func (s *stream) reasoning(id string) {
	oi := `"output_index":` + strconv.Itoa(s.idx)
	item := `{"type":"reasoning","id":` + jstr(id) + `,"summary":[],"encrypted_content":"gAAAA"}`
	s.event("response.output_item.added", oi+`,"item":`+item)
	s.event("response.output_item.done", oi+`,"item":`+item)
	s.items = append(s.items, item)
	s.idx++
}

func (s *stream) completed() {
	s.event("response.completed", `"response":{"id":"resp_1","object":"response","status":"completed","output":[`+strings.Join(s.items, ",")+`],"usage":{"input_tokens":10,"output_tokens":5,"total_tokens":15}}`)
}

func (s *stream) String() string { return strings.Join(s.frames, "") }

// parsedEvent is an output event decoded for assertions.
type parsedEvent struct {
	raw  string
	name string
	data map[string]any
}

func parseEvents(t testing.TB, body []byte) []parsedEvent {
	t.Helper()
	r := sse.NewReader(bytes.NewReader(body), 1<<30)
	var out []parsedEvent
	for {
		ev, err := r.Next()
		if ev != nil && ev.HasData {
			var m map[string]any
			if err := json.Unmarshal(ev.Data, &m); err != nil {
				t.Fatalf("output event is not JSON: %v\n%s", err, ev.Data)
			}
			out = append(out, parsedEvent{string(ev.Raw), ev.Name, m})
		}
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// withTranslator is the test seam: a translator that pins carrier text.
func withTranslator(t translator) Option {
	return func(c *config) error { c.translator = t; return nil }
}

// ownerItem is an additional_tools item that declares the Code Mode exec
// owner in the functions namespace, as Codex ≥0.147 does; its
// description offers exec_command and gives no #!params shape.
const ownerItem = `{"type":"additional_tools","id":"at_1","role":"developer","tools":[{"type":"namespace","name":"functions","description":"",` +
	`"tools":[{"type":"custom","name":"exec","description":"Run JavaScript; its nested tools include exec_command."}]}]}`

// ownedRequest is a request whose input is ownerItem and then items: the
// request stage owns it (namespace functions, no params), so its response
// is rewritten.
func ownedRequest(items ...string) string {
	return `{"input":[` + strings.Join(append([]string{ownerItem}, items...), ",") + `]}`
}

// ownedRequestStreaming is ownedRequest with its stream member.
func ownedRequestStreaming(stream bool) string {
	return `{"input":[` + ownerItem + `],"stream":` + strconv.FormatBool(stream) + `}`
}

// rewrittenBody is the request stage's rewrite of body, whole: what the
// upstream gets for it.
func rewrittenBody(body []byte) ([]byte, request.Info, error) {
	req, err := request.Parse(body)
	if err != nil {
		return nil, request.Info{}, err
	}
	var rw *request.Rewriter // no memo: the memo's output is the same
	out, info, err := rw.Rewrite(req, nil, nil)
	if err != nil {
		return nil, info, err
	}
	return bytes.Join(out, nil), info, nil
}

// untypedParams are exec_command arguments of the given names whose
// types the router could not read.
func untypedParams(names ...string) []shebang.Param {
	var out []shebang.Param
	for _, n := range names {
		out = append(out, shebang.Param{Name: n})
	}
	return out
}

func newTestRouter(t testing.TB, opts ...Option) *Router {
	t.Helper()
	u, _ := url.Parse("http://upstream.invalid/base")
	all := append([]Option{Upstream(u), withTranslator(fakeTranslator{}), Logger(slog.New(slog.DiscardHandler))}, opts...)
	rt, err := New(all...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

// rewriteStream runs the SSE rewrite over in, as one response.
func rewriteStream(t testing.TB, rt *Router, thread string, facts request.Info, in string) []byte {
	t.Helper()
	w := response.NewStream(response.New(context.Background(), &rt.responseDeps, thread, facts, response.Turn{}))
	r := sse.NewReader(strings.NewReader(in), 1<<20)
	var out []byte
	for {
		ev, err := r.Next()
		if ev != nil {
			out = w.Handle(ev, out)
		}
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
