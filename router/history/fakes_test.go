package history

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"hpatch-router/retain"
	"hpatch-router/router/request"
	"hpatch-router/router/threadstate"
)

// The stage's tests run it over a real thread state in a temporary
// directory and fakes of the scripts, the translator and the metrics,
// which record what the stage asked of them.

// testThread is a valid thread id (ident.Thread) for the tests.
const testThread = "thread-1"

// fakeScripts is a retained-script store that keeps staged changes in a
// list and records every call the stage makes.
type fakeScripts struct {
	mu sync.Mutex
	// staged changes settle by the state the stage reports for their
	// call: ran ones are returned as written, pending ones stay staged,
	// the others are dropped (as retain.Store.Settle does).
	staged []retain.Committed
	// states are the states the stage reported to the last Settle.
	states map[string]retain.CallState
	// settles counts Settle calls.
	settles int
	// restores are the histories handed to Restore, in call order.
	restores [][]retain.Committed
	// restored is what Restore returns; -1 returns len(history).
	restored int
	// reconciles are the histories handed to Reconcile, in call order.
	reconciles [][]retain.Committed
	// unknown is what Reconcile returns as the scripts without a version.
	unknown map[string]string
	// notApplied lists calls Reconcile leaves out of what applied.
	notApplied map[string]bool
}

func newFakeScripts() *fakeScripts { return &fakeScripts{restored: -1} }

func (f *fakeScripts) Staged(string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.staged) > 0
}

func (f *fakeScripts) Settle(_ context.Context, _ string, state func(string) retain.CallState) []retain.Committed {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.settles++
	f.states = map[string]retain.CallState{}
	var written, waiting []retain.Committed
	for _, c := range f.staged {
		st := state(c.Call)
		f.states[c.Call] = st
		switch st {
		case retain.CallRan:
			written = append(written, c)
		case retain.CallPending:
			waiting = append(waiting, c)
		}
	}
	f.staged = waiting
	return written
}

func (f *fakeScripts) Reconcile(_ context.Context, _ string, history []retain.Committed) ([]retain.Committed, map[string]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reconciles = append(f.reconciles, history)
	var applied []retain.Committed
	for _, c := range history {
		if !f.notApplied[c.Call] {
			applied = append(applied, c)
		}
	}
	return applied, f.unknown
}

func (f *fakeScripts) Restore(_ context.Context, _ string, history []retain.Committed) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.restores = append(f.restores, history)
	if f.restored < 0 {
		return len(history)
	}
	return f.restored
}

// fakeTranslator says a carrier retains ref when it carries the meta a
// retaining carrier ends with (shebang's {"retained":true,"script_ref":…}).
type fakeTranslator struct{}

func (fakeTranslator) Retains(carrier, ref string) bool {
	return strings.Contains(carrier, `"script_ref":"`+ref+`"`)
}

// fakeMetrics counts what the stage reported.
type fakeMetrics struct {
	mu        sync.Mutex
	replay    map[string]int
	committed int
	restored  int
}

func (m *fakeMetrics) Replay(outcome string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.replay == nil {
		m.replay = map[string]int{}
	}
	m.replay[outcome]++
}

func (m *fakeMetrics) Committed(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.committed += n
}

func (m *fakeMetrics) RestoredScripts(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.restored += n
}

func (m *fakeMetrics) count(outcome string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.replay[outcome]
}

// harness is a stage with its store and fakes.
type harness struct {
	stage   *Stage
	store   *threadstate.Store
	scripts *fakeScripts
	metrics *fakeMetrics
	dir     string
}

// newHarness opens a thread state in a temporary directory and builds a
// stage over it with fresh fakes.
func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{scripts: newFakeScripts(), metrics: &fakeMetrics{}, dir: t.TempDir()}
	h.store = openStore(t, h.dir)
	h.stage = New(h.store, h.scripts, fakeTranslator{}, h.metrics, slog.New(slog.DiscardHandler))
	return h
}

// openStore opens a thread state on dir, closed when the test ends.
func openStore(t *testing.T, dir string) *threadstate.Store {
	t.Helper()
	st, err := threadstate.Open(dir, threadstate.DefaultLimits(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// apply runs the stage for body (parsed) in testThread.
func (h *harness) apply(t *testing.T, body []byte, streaming bool) ([]request.Edit, error) {
	t.Helper()
	req, err := request.Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	return h.stage.Apply(context.Background(), Turn{Thread: testThread, Req: req, Streaming: streaming})
}

// put records that carrier stands for the original item in testThread.
func (h *harness) put(t *testing.T, callID, carrier, original string) {
	t.Helper()
	if err := h.store.Put(testThread, callID, carrier, []byte(original)); err != nil {
		t.Fatal(err)
	}
}

// journaled returns the changes testThread's journal holds, by call.
func (h *harness) journaled() []string {
	var calls []string
	h.store.View(testThread, func(v threadstate.View) {
		for c := range v.Commits() {
			calls = append(calls, c.Call)
		}
	})
	return calls
}

// quoted is s as a JSON string.
func quoted(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// execCall is a custom_tool_call item named exec: a carrier Codex
// echoes, or the model's own exec.
func execCall(id, input string) string {
	return `{"type":"custom_tool_call","name":"exec","call_id":` + quoted(id) + `,"input":` + quoted(input) + `}`
}

// modelCall is the model's original call item of tool name.
func modelCall(id, name, input string) string {
	return `{"type":"custom_tool_call","id":"ctc_` + id + `","status":"completed","name":` + quoted(name) +
		`,"call_id":` + quoted(id) + `,"input":` + quoted(input) + `}`
}

// callOutput is a custom_tool_call_output item; output is raw JSON.
func callOutput(id, output string) string {
	return `{"type":"custom_tool_call_output","call_id":` + quoted(id) + `,"output":` + output + `}`
}

// requestBody is a Responses request whose input holds items.
func requestBody(items ...string) []byte {
	return []byte(`{"model":"gpt-test","stream":true,"input":[` + strings.Join(items, ",") + `]}`)
}

// shellCarrier is a carrier the router makes for a shell call (it runs
// the shell helper through exec_command); retained adds the meta that
// tells the model its input is kept as @shell/<id>.
func shellCarrier(id, cmd string, retained bool) string {
	meta := `{"retained":false}`
	if retained {
		meta = `{"retained":true,"script_ref":"@shell/` + id + `"}`
	}
	return `const result = await tools.exec_command({"cmd":"shell ` + cmd + `","login":false});` + "\n" +
		`text(result !== null && typeof result === "object" ? JSON.stringify(Object.assign({}, result, ` + meta + `)) : String(result));`
}

// ranJSON and abortedJSON are the outputs of a call that ran and of one
// Codex did not run.
const (
	ranJSON     = `"exit 0"`
	abortedJSON = `"aborted"`
)
