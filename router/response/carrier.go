package response

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"hpatch-router/hpatch"
	"hpatch-router/plugins/registry"
	"hpatch-router/privname"
	"hpatch-router/retain"
	"hpatch-router/router/request"
	"hpatch-router/router/threadstate"
	"hpatch-router/scriptref"
	"hpatch-router/shebang"
	"hpatch-router/workspace"
)

// Session holds what one upstream response's rewrite needs: the request
// facts, the thread, and the carriers already made (by call_id), so a call
// seen in output_item.done and again in response.completed gets the same
// carrier and is translated, retained and stored once.
type Session struct {
	deps     *Deps
	ctx      context.Context
	thread   string // a valid thread id, or "" (then nothing is retained or stored)
	facts    request.Info
	carriers map[string][]byte
	// calls is the model's input of each withheld call seen, by call_id:
	// a response carries one carrier per call (repeatedCall).
	calls    map[string]string
	warned   map[string]bool // call_ids whose repeat with another input was logged
	prepared bool
	prepErr  error
	start    time.Time // when the upstream response started
	// turn is where the request's turn runs, for workspace hpatch calls.
	turn Turn
	// edits holds what the workspace hpatch calls of this response
	// will write, in order: Codex runs them in order, so each later call
	// is resolved on top of the earlier ones.
	edits workspace.Pending
}

// Deps is what the response rewrite uses of the router, each part named:
// the thread state it records carriers in, translation, the retained
// scripts, the thread's runtime, the metrics, the observers and the log.
// The router builds it once; every response's session shares it.
type Deps struct {
	Store      *threadstate.Store
	Translator Translator
	Scripts    Scripts // nil: no retained scripts in this router
	Runtime    Runtime
	Metrics    Metrics
	Observers  Observers
	Log        *slog.Logger
}

// New starts the rewrite of one upstream response to a request of thread
// with facts, whose turn runs in turn.
func New(ctx context.Context, deps *Deps, thread string, facts request.Info, turn Turn) *Session {
	return &Session{deps: deps, ctx: ctx, thread: thread, facts: facts, turn: turn, carriers: map[string][]byte{},
		calls: map[string]string{}, warned: map[string]bool{}, start: time.Now()}
}

// Model tool names the router owns; the owner it turns them into is
// request.ExecTool.
const (
	ToolShell  = "shell"
	ToolHPatch = "hpatch"
)

// ReportPrefix starts the carrier of an hpatch call on retained scripts
// whose edit was checked: PrintCarrier of a report, which begins with its
// first script's header. A refused edit prints "hpatch: …".
const ReportPrefix = `text("` + scriptref.RefPrefix

// routerNamespace is the namespace a model may put the router's own tools
// in whatever the layout: the flat 0.144–0.146 layout has no namespace, but
// a model trained on the functions namespace still names it.
const routerNamespace = "functions"

// inScope reports whether item is a custom_tool_call the rewrite of an
// owned request looks at: shell, hpatch or a declared tool the request
// offered, in the owner's namespace, in functions or in none (they are
// the router's whatever the model called their container); exec in the
// owner's namespace or in none (another namespace's exec is not this
// owner's).
func (s *Session) inScope(item gjson.Result) bool {
	if !s.facts.Owned || item.Get("type").String() != "custom_tool_call" {
		return false
	}
	ns := item.Get("namespace")
	switch name := item.Get("name").String(); {
	case name == ToolShell || name == ToolHPatch || s.offeredTool(name) != nil:
		if ns.String() == routerNamespace {
			return true
		}
	case name == request.ExecTool:
	default:
		return false
	}
	return !ns.Exists() || ns.Type == gjson.Null || ns.String() == "" || ns.String() == s.facts.Namespace
}

// withholds reports whether item (in scope) is replaced as a whole, so its
// streamed input must not reach the client: every call in scope but the
// owner's own exec (shell, hpatch and the declared tools offered).
func withholds(item gjson.Result) bool {
	return item.Get("name").String() != request.ExecTool
}

// repeatedCall records a withheld call of this response and reports
// whether its call_id came before: an upstream that sends a call twice
// (output_item.done twice) must not make Codex run it twice, so the first
// one stands. A repeat with another input is logged once per call_id,
// since the model was never shown what that one would run.
func (s *Session) repeatedCall(item gjson.Result) bool {
	callID, input := item.Get("call_id").String(), item.Get("input").String()
	if callID == "" {
		return false
	}
	first, seen := s.calls[callID]
	if !seen {
		s.calls[callID] = strings.Clone(input)
		return false
	}
	if input != first && !s.warned[callID] {
		s.warned[callID] = true
		s.deps.Log.Warn("upstream sent a call twice in one response with another input; the first one stands", "call_id", callID)
	}
	return true
}

// carrierItem returns the item Codex receives in place of the model's
// completed item raw, or nil when it passes unchanged. The carrier is the
// model item with name "exec" and the carrier JavaScript as input; a
// shell/hpatch carrier names the owner's namespace (none on the flat
// layout, where Codex refuses "functionsexec"), and every other field (id,
// call_id, status) is kept. A model exec keeps its namespace.
func (s *Session) carrierItem(item gjson.Result) []byte {
	callID := item.Get("call_id").String()
	if c, ok := s.carriers[callID]; ok && callID != "" {
		return c
	}
	if carrier, ok := s.sentBefore(callID, item); ok {
		s.restage(callID, item, carrier)
		return s.carrierOf(item, callID, carrier)
	}
	input := item.Get("input").String()
	var carrier string
	switch item.Get("name").String() {
	case ToolShell:
		carrier = s.shellCarrier(callID, input)
	case ToolHPatch:
		carrier = s.hpatchCarrier(callID, input)
	case request.ExecTool:
		annotated, changed := s.deps.Translator.AnnotateExec(input)
		if !changed {
			return nil
		}
		s.deps.Metrics.ExecAnnotated()
		carrier = annotated
	default:
		t := s.offeredTool(item.Get("name").String())
		if t == nil {
			return nil
		}
		carrier = s.toolCarrier(callID, input, t)
	}
	out := s.carrierOf(item, callID, carrier)
	if out != nil && s.thread != "" && callID != "" {
		if err := s.deps.Store.Put(s.thread, callID, carrier, []byte(item.Raw)); err != nil {
			s.deps.Metrics.Replay("store_error")
			s.deps.Log.Error("cannot store the replay entry", "call_id", callID, "err", err)
		}
	}
	return out
}

// sentBefore returns the carrier the router sent for this same call
// (same call_id, name, namespace and input) in an earlier response of the
// thread: an upstream, a retrying proxy or a replayed stream that sends a
// call again gets the same carrier, with no new translation, retention
// or edit.
func (s *Session) sentBefore(callID string, item gjson.Result) (string, bool) {
	if s.thread == "" || callID == "" {
		return "", false
	}
	carrier, ok := s.deps.Store.Sent(s.thread, callID, item)
	if ok {
		s.deps.Metrics.Replay("resent")
		s.deps.Log.Info("call sent again; answering with the carrier sent before", "call_id", callID)
	}
	return carrier, ok
}

// carrierOf builds the carrier item for the model item and its carrier
// JavaScript, and remembers it for the rest of the response: the model's
// item with its name, input and, for a withheld call, namespace set to
// the owner's (sjson edits the members in place; the rest stays as the
// model sent it).
func (s *Session) carrierOf(item gjson.Result, callID, carrier string) []byte {
	out, err := sjson.SetBytes([]byte(item.Raw), "name", request.ExecTool)
	if err == nil {
		out, err = sjson.SetBytes(out, "input", carrier)
	}
	if err == nil && withholds(item) {
		out, err = s.setOwnerNamespace(out, item)
	}
	if err != nil {
		s.deps.Log.Error("cannot build the carrier item: the model's item is not valid JSON", "call_id", callID)
		return nil
	}
	s.deps.Metrics.Carrier()
	if callID != "" {
		s.carriers[callID] = out
	}
	return out
}

// setOwnerNamespace gives the carrier item c the owner's namespace, or
// none for a flat owner, unless item has it already.
func (s *Session) setOwnerNamespace(c []byte, item gjson.Result) ([]byte, error) {
	ns := item.Get("namespace")
	switch {
	case s.facts.Namespace == "" && !ns.Exists():
		return c, nil
	case s.facts.Namespace == "":
		return sjson.DeleteBytes(c, "namespace")
	case ns.Type == gjson.String && ns.Str == s.facts.Namespace:
		return c, nil
	}
	return sjson.SetBytes(c, "namespace", s.facts.Namespace)
}

// shellCarrier translates one shell input into its carrier JavaScript and
// reports the call to the observers: a translated call as a CallEvent, a
// rejected one only as a RejectionEvent (it counts once).
func (s *Session) shellCarrier(callID, input string) string {
	ev := CallEvent{Thread: s.thread, CallID: callID, ModelBytes: len(input), Body: input}
	carrier := s.translateShell(callID, input, &ev)
	if obs := s.deps.Observers; obs.Active() && ev.Kind != kindRejected {
		ev.Time = time.Now()
		ev.Duration = ev.Time.Sub(s.start)
		ev.CarrierBytes = len(carrier)
		obs.ShellCall(ev)
	}
	return carrier
}

func (s *Session) translateShell(callID, input string, ev *CallEvent) string {
	tr := s.deps.Translator
	content := input
	rerun := false
	if id, ok := tr.ScriptReference(input); ok {
		resolved, err := s.resolve(id)
		if err != nil {
			return s.reject(ev, "script_reference", err, true)
		}
		content, rerun = resolved, true
	}
	plan, err := tr.Translate(content, s.facts.Params)
	if err != nil {
		return s.reject(ev, "translate", err, true)
	}
	if plan.RunsWorker() {
		if err = s.prepareRuntime(); err != nil {
			return s.reject(ev, "runtime", err, false)
		}
	}
	if rerun {
		plan.Kind = shebang.KindRerun
	}
	s.deps.Metrics.ShellCall(string(plan.Kind), plan.Interpreter, len(plan.Warnings))
	var ret shebang.Retention
	if plan.Retainable && s.deps.Scripts != nil && s.thread != "" && callID != "" {
		ref, err := s.deps.Scripts.Stage(s.ctx, s.thread, callID, content)
		if err == nil {
			ret = shebang.Retention{Retained: true, ScriptRef: ref}
		} else {
			s.deps.Log.Info("script not retained", "call_id", callID, "err", err)
		}
	}
	ev.Kind, ev.Interpreter, ev.Warnings, ev.ScriptRef = string(plan.Kind), plan.Interpreter, plan.Warnings, ret.ScriptRef
	return tr.Carrier(plan, ret)
}

// kindRejected marks a shell call answered with a diagnostic carrier.
const kindRejected = "rejected"

// reject counts a diagnostic carrier, tells the observers and renders it.
// quotesScript says the diagnostic may quote the model's script (see
// callRejection).
func (s *Session) reject(ev *CallEvent, code string, err error, quotesScript bool) string {
	s.deps.Metrics.Rejection(code)
	ev.Kind = kindRejected
	s.deps.Observers.Observe(callRejection(s.thread, ev.CallID, code, "shell", err, quotesScript))
	return s.deps.Translator.Rejection(err)
}

func (s *Session) resolve(id string) (string, error) {
	switch {
	case s.deps.Scripts == nil:
		return "", errors.New("retained scripts are not available in this router")
	case s.thread == "":
		return "", errors.New("no thread id, so " + scriptref.FormatRef(id) + " cannot be resolved")
	}
	return s.deps.Scripts.Resolve(s.ctx, s.thread, scriptref.FormatRef(id))
}

// prepareRuntime makes sure of the thread's runtime once per response,
// before the first carrier that runs the worker, unless the request did
// (RuntimeReady).
func (s *Session) prepareRuntime() error {
	if !s.prepared {
		s.RuntimeReady(s.deps.Runtime.Ensure(s.ctx, s.thread))
	}
	return s.prepErr
}

// RuntimeReady records a check of the thread's runtime, the request's own
// (the router's, moments before its response starts): the worker
// carriers of the response rely on it rather than checking again.
func (s *Session) RuntimeReady(err error) {
	s.prepared = true
	if err != nil {
		s.prepErr = fmt.Errorf("the router could not prepare this thread's runtime: %w", err)
	}
}

// hpatchCarrier checks and stages one hpatch edit and returns a carrier
// that only prints the report (or the one-line error). The edit is written
// when a later request shows that the carrier ran (settle).
func (s *Session) hpatchCarrier(callID, input string) string {
	s.deps.Metrics.HpatchCall()
	if p, err := retain.ParsePatch(input); err == nil && p.Workspace {
		return s.workspaceCarrier(callID, input, p)
	}
	switch {
	case s.deps.Scripts == nil:
		return s.hpatchFailed(callID, errors.New("retained scripts are not available in this router, so there is nothing to edit"), false)
	case s.thread == "":
		return s.hpatchFailed(callID, errors.New("the request carried no thread id, so no retained script can be edited"), false)
	}
	report, err := s.deps.Scripts.StageEdit(s.ctx, s.thread, callID, input)
	if err != nil {
		// A stale or mismatched row is reported with its current text.
		return s.hpatchFailed(callID, err, true)
	}
	return PrintCarrier(report)
}

// workspaceCarrier resolves a workspace edit against the files as they
// are now, as the earlier workspace edits of the response will leave them
// (s.edits), in the workspace the request declared, and returns a carrier
// that runs hpatch-write through tools.exec_command: the write happens in
// Codex's sandbox and under its approvals, checked again there against
// the digest of what was resolved here. Nothing is written or staged by
// the router. A refusal (no workspace root, a path out of the workspace, a
// stale row, …) is a carrier that only prints it.
func (s *Session) workspaceCarrier(callID, input string, p *hpatch.Patch) string {
	plan, err := s.edits.Resolve(s.ctx, s.turn.Env, p)
	if err != nil {
		return s.hpatchFailed(callID, err, true)
	}
	argv := []string{privname.HpatchWrite, "--expect", plan.Digest(), "--cwd", s.turn.Env.Cwd}
	for _, r := range s.turn.Env.Roots {
		argv = append(argv, "--root", r)
	}
	for _, prior := range plan.After {
		argv = append(argv, "--after", prior.Call+":"+prior.State)
	}
	call, err := shebang.PrivateCall(append(argv, input))
	if err != nil {
		return s.hpatchFailed(callID, err, true)
	}
	if err := s.prepareRuntime(); err != nil {
		return s.hpatchFailed(callID, err, false)
	}
	s.edits.Add(callID, plan)
	s.deps.Log.Info("workspace hpatch resolved", "call_id", callID, "files", len(plan.Files), "after_calls", len(plan.After), "sandbox_mode", s.turn.Sandbox)
	return call.OutputCarrier()
}

// hpatchFailed is the carrier for a refused edit: the edge that adds
// "hpatch: " to the error's one line (callRejection's Detail).
func (s *Session) hpatchFailed(callID string, err error, quotesScript bool) string {
	s.deps.Metrics.Rejection("hpatch")
	e := callRejection(s.thread, callID, "hpatch", "hpatch", err, quotesScript)
	s.deps.Observers.Observe(e)
	return PrintCarrier(e.Detail)
}

// PrintCarrier is Code Mode JavaScript that prints s and runs nothing.
func PrintCarrier(s string) string {
	b, _ := json.Marshal(s)
	return "text(" + string(b) + ");"
}

// EditReport is the report a carrier of a checked hpatch edit on retained
// scripts prints (it starts with ReportPrefix); ok is false for any other
// carrier, a refused edit's among them.
func EditReport(carrier string) (report string, ok bool) {
	if !strings.HasPrefix(carrier, ReportPrefix) {
		return "", false
	}
	return PrintedText(carrier)
}

// PrintedText is the text a PrintCarrier carrier prints; ok is false for
// any other carrier.
func PrintedText(carrier string) (text string, ok bool) {
	s, ok := strings.CutPrefix(carrier, "text(")
	if !ok {
		return "", false
	}
	if s, ok = strings.CutSuffix(s, ");"); !ok {
		return "", false
	}
	if json.Unmarshal([]byte(s), &text) != nil {
		return "", false
	}
	return text, true
}

// offeredTool returns the tool of this request named name, or nil.
func (s *Session) offeredTool(name string) *registry.Tool {
	for _, t := range s.facts.Tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// toolCarrier translates one call of a declared tool into its carrier, as
// a shell call whose shebang is the tool's run; it is never retained and
// gets no A16 warnings. A rejection prints "NAME: why" and runs nothing.
func (s *Session) toolCarrier(callID, input string, t *registry.Tool) string {
	s.deps.Metrics.ToolCall(t.Name)
	plan, err := shebang.TranslateTool(t.Spec, input, shebang.Options{Params: s.facts.Params})
	code, quotes := "tool", true
	if err == nil {
		if err = s.prepareRuntime(); err != nil {
			code, quotes = "runtime", false
		}
	}
	if err != nil {
		s.deps.Metrics.Rejection(code)
		s.deps.Observers.Observe(callRejection(s.thread, callID, code, t.Name, err, quotes))
		return shebang.ToolRejectionCarrier(t.Name, err)
	}
	carrier := s.deps.Translator.Carrier(plan, shebang.Retention{})
	if obs := s.deps.Observers; obs.Active() {
		ev := CallEvent{Thread: s.thread, CallID: callID, Tool: t.Name, Kind: string(plan.Kind), Interpreter: plan.Interpreter,
			ModelBytes: len(input), CarrierBytes: len(carrier), Body: input}
		ev.Time = time.Now()
		ev.Duration = ev.Time.Sub(s.start)
		obs.ShellCall(ev)
	}
	return carrier
}
