package router

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"hpatch-router/router/history"
	"hpatch-router/router/request"
	"hpatch-router/router/routertest"
	"hpatch-router/router/threadstate"
)

// echoOf is the carrier item as Codex echoes it in the next request
// (FACTS §3.4/§5): its own key order, the server's id and status kept.
func echoOf(id, callID, ns, input string) string {
	b := `{"type":"custom_tool_call","id":` + jstr(id) + `,"status":"completed","call_id":` + jstr(callID) + `,"name":"exec"`
	if ns != "" {
		b += `,"namespace":` + jstr(ns)
	}
	return b + `,"input":` + jstr(input) + "}"
}

// replayUpstream answers the first request with s and records every body.
type replayUpstream struct {
	mu     sync.Mutex
	bodies []string
	first  string
}

func (u *replayUpstream) handler(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	u.bodies = append(u.bodies, string(b))
	n := len(u.bodies)
	u.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	if n == 1 {
		io.WriteString(w, u.first)
		return
	}
	s := &stream{}
	s.message("msg_2", "done")
	s.completed()
	io.WriteString(w, s.String())
}

func (u *replayUpstream) body(i int) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.bodies[i]
}

// A15/A17: the echoed carrier becomes the model's original item, byte for
// byte; Codex's output item is left as it is.
func TestReplayRestoresOriginalBytes(t *testing.T) {
	for _, ns := range []string{"functions", ""} {
		s := &stream{}
		s.created()
		original := s.call("ctc_1", "call_1", "shell", ns, pyInput, 3)
		s.completed()
		up := &replayUpstream{first: s.String()}
		h := newHarness(t, up.handler, StateDir(t.TempDir()))
		readAll(t, h.post(ownedRequest(), "Thread-Id", "thread-1"))
		carrier := "carrier(worker|" + pyInput + "|false|)"
		output := `{"type":"custom_tool_call_output","id":"ctco_1","call_id":"call_1","output":[{"type":"input_text","text":"Script completed\n"}]}`
		next := `{"model":"m","input":[{"type":"message","role":"user","content":[]},` + echoOf("ctc_1", "call_1", ns, carrier) + "," + output + `],"stream":true}`
		readAll(t, h.post(next, "Thread-Id", "thread-1"))
		want := strings.Replace(next, echoOf("ctc_1", "call_1", ns, carrier), original, 1)
		if got := up.body(1); got != want {
			t.Fatalf("ns %q: upstream got\n%s\nwant\n%s", ns, got, want)
		}
	}
}

func TestReplayMismatchIsAnError(t *testing.T) {
	s := &stream{}
	s.call("ctc_1", "call_1", "shell", "functions", "ls", 1)
	s.completed()
	up := &replayUpstream{first: s.String()}
	h := newHarness(t, up.handler)
	readAll(t, h.post(ownedRequest(), "Thread-Id", "thread-1"))
	next := `{"input":[` + echoOf("ctc_1", "call_1", "functions", "something else") + `]}`
	msg := wantRouterError(t, h.post(next, "Thread-Id", "thread-1"), http.StatusConflict, history.CodeReplayMismatch)
	if !strings.Contains(msg, `"call_1"`) {
		t.Fatalf("message does not name the call: %s", msg)
	}
	if len(up.bodies) != 1 {
		t.Fatal("a mismatching request was forwarded")
	}
	// Another thread, or no thread, knows nothing of call_1.
	readAll(t, h.post(next, "Thread-Id", "thread-2"))
	readAll(t, h.post(next))
	if up.body(1) != next || up.body(2) != next {
		t.Fatal("unrelated requests changed")
	}
}

func TestReplaySurvivesRestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	rt := newTestRouter(t, StateDir(dir))
	original := callItem("ctc_1", "call_1", "shell", "functions", pyInput, "completed")
	if err := rt.replay.Put("thread-1", "call_1", "CARRIER", []byte(original)); err != nil {
		t.Fatal(err)
	}
	rt.Close()
	info, err := os.Stat(filepath.Join(dir, "thread-1.replay.jsonl"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("replay file %v %v", info, err)
	}
	if d, _ := os.Stat(dir); d.Mode().Perm() != 0o700 {
		t.Fatalf("state dir mode %v", d.Mode())
	}
	rt2 := newTestRouter(t, StateDir(dir))
	body := `{"input":[` + echoOf("ctc_1", "call_1", "functions", "CARRIER") + `]}`
	got, err := rt2.restoreReplay("thread-1", []byte(body))
	if err != nil || string(got) != `{"input":[`+original+`]}` {
		t.Fatalf("after restart: %s %v", got, err)
	}
}

// A thread header that is no thread id is not used (the store refuses it
// too: threadstate's TestReplayRefusesUnsafeThreadIDs).
func TestReplayRefusesUnsafeThreadIDs(t *testing.T) {
	dir := t.TempDir()
	rt := newTestRouter(t, StateDir(dir))
	unsafe := []string{"../x", "a/b", ".", "..", "a b", "snapshot-0123456789abcdef0123456789abcdef", strings.Repeat("t", 129)}
	for _, th := range unsafe {
		r, _ := http.NewRequest("POST", "/", nil)
		r.Header.Set("Thread-Id", th)
		if rt.threadID(r) != "" {
			t.Fatalf("unsafe thread header %q used", th)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("files created: %v", ents)
	}
}

// A carrier is in the journal when put returns: a second store opened on
// the same directory while the first is still running, never closed nor
// flushed (as after kill -9), restores it.
func TestReplayJournalSurvivesCrash(t *testing.T) {
	dir := t.TempDir()
	first, err := threadstate.Open(dir, threadstate.DefaultLimits(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	original := callItem("ctc_1", "call_1", "shell", "functions", pyInput, "completed")
	if err := first.Put("thread-1", "call_1", "CARRIER", []byte(original)); err != nil {
		t.Fatal(err)
	}
	rt := newTestRouter(t, StateDir(dir))
	body := `{"input":[` + echoOf("ctc_1", "call_1", "functions", "CARRIER") + `]}`
	got, err := rt.restoreReplay("thread-1", []byte(body))
	if err != nil || string(got) != `{"input":[`+original+`]}` {
		t.Fatalf("after a crash: %s %v", got, err)
	}
}

// A carrier Codex echoes with its JSON spaced is restored as well.
func TestReplaySpacedEcho(t *testing.T) {
	rt := newTestRouter(t)
	original := callItem("ctc_1", "call_1", "shell", "functions", pyInput, "completed")
	if err := rt.replay.Put("th", "call_1", "CARRIER", []byte(original)); err != nil {
		t.Fatal(err)
	}
	echo := `{"type": "custom_tool_call", "call_id": "call_1", "name": "exec", "input": "CARRIER"}`
	got, err := rt.restoreReplay("th", []byte(`{"input": [`+echo+`]}`))
	if err != nil || string(got) != `{"input": [`+original+`]}` {
		t.Fatalf("spaced echo: %s %v", got, err)
	}
}

// restoreReplay is the restored body the history stage's edits describe, joined
// (the router sends them as pieces of the body instead).
func (rt *Router) restoreReplay(thread string, body []byte) ([]byte, error) {
	req, err := request.Parse(body)
	if err != nil {
		return body, nil // nothing is restored in what is not a JSON object
	}
	edits, err := rt.history.Apply(context.Background(), history.Turn{Thread: thread, Req: req})
	if err != nil || len(edits) == 0 {
		return body, err
	}
	return bytes.Join(request.Splice(body, edits), nil), nil
}

// stored returns the entry rt's store holds for callID in thread.
func stored(rt *Router, thread, callID string) (e threadstate.Entry, ok bool) {
	rt.replay.View(thread, func(v threadstate.View) { e, ok = v.Get(callID) })
	return e, ok
}

// errCode is the code the router answers err with, or "" for none.
func errCode(err error) string {
	if err == nil {
		return ""
	}
	return requestError(err).Code
}

// TestRestoreLongThread follows a thread's conversation of exec turns:
// every call the store knows is restored, wherever it is, and the store is
// asked afresh on every request, so a call it learned since is restored
// and one whose carrier it does not match is refused.
func TestRestoreLongThread(t *testing.T) {
	const thread = "01a23618-3154-7773-b8cb-233739215f5f"
	carrier := "const r = await tools.exec_command({cmd: \"ls -la\"});\ntext(JSON.stringify(r));"
	put := func(rt *Router, carrier string, ids ...int) {
		for _, i := range ids {
			id := "call_" + strconv.Itoa(i)
			if err := rt.replay.Put(thread, id, carrier, []byte(`{"type":"custom_tool_call","call_id":"`+id+`","name":"shell","input":"ls"}`)); err != nil {
				t.Fatal(err)
			}
		}
	}
	base := routertest.CompactJSON(t, readCapture(t, "cli-lite-exec/001-post.json"))
	k := 0
	body := routertest.Conversation(t, base, 0, func(int) bool { k++; return k <= 23 })
	rt := newTestRouter(t)
	put(rt, carrier, 0, 2, 4, 21)
	restored := func() int {
		out, err := rt.restoreReplay(thread, body)
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Count(out, []byte(`"name":"shell"`))
	}
	if n := restored(); n != 4 {
		t.Fatalf("%d calls restored, want 4", n)
	}
	put(rt, carrier, 5)
	if n := restored(); n != 5 {
		t.Fatalf("after the store learned call_5: %d calls restored, want 5", n)
	}
	put(rt, "something else", 7)
	if _, err := rt.restoreReplay(thread, body); errCode(err) != history.CodeReplayMismatch {
		t.Fatalf("a call whose carrier the store does not match: %v, want %s", err, history.CodeReplayMismatch)
	}
}
