package router

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"
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
		h := newHarness(t, up.handler, withRequestRewrite(ownedBy("functions")), StateDir(t.TempDir()))
		readAll(t, h.post(`{"input":[]}`, "Thread-Id", "thread-1"))
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
	h := newHarness(t, up.handler, withRequestRewrite(ownedBy("functions")))
	readAll(t, h.post(`{"input":[]}`, "Thread-Id", "thread-1"))
	next := `{"input":[` + echoOf("ctc_1", "call_1", "functions", "something else") + `]}`
	msg := wantRouterError(t, h.post(next, "Thread-Id", "thread-1"), http.StatusConflict, CodeReplayMismatch)
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
	if err := rt.replay.put("thread-1", "call_1", "CARRIER", []byte(original)); err != nil {
		t.Fatal(err)
	}
	rt.Close()
	info, err := os.Stat(filepath.Join(dir, "thread-1"+replayJournalSuffix))
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

func TestReplayBounds(t *testing.T) {
	dir := t.TempDir()
	rt := newTestRouter(t, StateDir(dir), WithReplayLimits(ReplayLimits{MaxEntriesPerThread: 3, MaxCachedThreads: 1}))
	for i := range 5 {
		if err := rt.replay.put("a", fmt.Sprint("call_", i), "c", []byte(`{"i":1}`)); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := rt.replay.get("a", "call_1"); ok {
		t.Fatal("oldest entry kept past MaxEntriesPerThread")
	}
	if _, ok := rt.replay.get("a", "call_4"); !ok {
		t.Fatal("newest entry lost")
	}
	for _, th := range []string{"b", "c"} {
		if err := rt.replay.put(th, "x", "c", []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	rt.replay.flush()
	if len(rt.replay.threads) > 1 {
		t.Fatalf("%d threads cached", len(rt.replay.threads))
	}
	// Byte bound.
	rt2 := newTestRouter(t, WithReplayLimits(ReplayLimits{MaxBytesPerThread: 10}))
	rt2.replay.put("t", "a", "c", []byte(`{"aaaaaa":1}`))
	rt2.replay.put("t", "b", "c", []byte(`{"b":1}`))
	if _, ok := rt2.replay.get("t", "a"); ok {
		t.Fatal("byte bound not enforced")
	}
}

func TestReplayRefusesUnsafeThreadIDs(t *testing.T) {
	dir := t.TempDir()
	rt := newTestRouter(t, StateDir(dir))
	unsafe := []string{"../x", "a/b", ".", "..", "a b", "snapshot-0123456789abcdef0123456789abcdef", strings.Repeat("t", 129)}
	for _, th := range unsafe {
		if err := rt.replay.put(th, "c", "x", []byte(`{}`)); err == nil {
			t.Fatalf("thread %q accepted", th)
		}
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

// Concurrent puts over more threads than the cache holds all reach disk.
func TestReplayConcurrentDurable(t *testing.T) {
	dir := t.TempDir()
	rt := newTestRouter(t, StateDir(dir), WithReplayLimits(ReplayLimits{MaxCachedThreads: 2}))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				th := fmt.Sprint("t", (g+i)%5)
				if err := rt.replay.put(th, fmt.Sprint("c", g, "_", i), "x", []byte(`{}`)); err != nil {
					t.Error(err)
				}
				rt.replay.get(th, "c0_0")
			}
		}()
	}
	wg.Wait()
	rt.Close()
	rt2 := newTestRouter(t, StateDir(dir))
	n := 0
	for th := range 5 {
		n += rt2.replay.count(fmt.Sprint("t", th))
	}
	if n != 8*20 {
		t.Fatalf("%d entries on disk, want %d", n, 8*20)
	}
}

// A carrier Codex echoes with its JSON spaced is restored as well.
func TestReplaySpacedEcho(t *testing.T) {
	rt := newTestRouter(t)
	original := callItem("ctc_1", "call_1", "shell", "functions", pyInput, "completed")
	if err := rt.replay.put("th", "call_1", "CARRIER", []byte(original)); err != nil {
		t.Fatal(err)
	}
	echo := `{"type": "custom_tool_call", "call_id": "call_1", "name": "exec", "input": "CARRIER"}`
	got, err := rt.restoreReplay("th", []byte(`{"input": [`+echo+`]}`))
	if err != nil || string(got) != `{"input": [`+original+`]}` {
		t.Fatalf("spaced echo: %s %v", got, err)
	}
}

// restoreReplay is the restored body restoreEdits' edits describe, joined
// (the router sends them as pieces of the body instead).
func (rt *Router) restoreReplay(thread string, body []byte) ([]byte, error) {
	req, err := parseRequest(body)
	if err != nil {
		return body, nil // nothing is restored in what is not a JSON object
	}
	edits, err := rt.restoreEdits(thread, req)
	if err != nil || len(edits) == 0 {
		return body, err
	}
	return bytes.Join(splice(body, edits), nil), nil
}

// TestReplayPutKeepsNoCallerString: the call id the rewrite passes is a
// substring of gjson's copy of the whole model item; the entry keeps its
// own copy, so the item is not held twice for as long as the entry lives.
func TestReplayPutKeepsNoCallerString(t *testing.T) {
	s, err := newReplayStore("", DefaultReplayLimits(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	item := `{"type":"custom_tool_call","call_id":"call_1","name":"shell","input":"ls"}`
	i := strings.Index(item, "call_1")
	callID := item[i : i+len("call_1")]
	if err := s.put("thread-1", callID, "carrier", []byte(item)); err != nil {
		t.Fatal(err)
	}
	s.lookup("thread-1", func(t2 *threadReplay) {
		e, ok := t2.get("call_1")
		if !ok {
			t.Fatal("entry missing")
		}
		start := uintptr(unsafe.Pointer(unsafe.StringData(item)))
		if p := uintptr(unsafe.Pointer(unsafe.StringData(e.CallID))); p >= start && p < start+uintptr(len(item)) {
			t.Error("the entry's call id points into the caller's item string")
		}
	})
}

// errCode is the code of the router *Error err, its text for another
// error, or "" for none.
func errCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if err != nil {
		return err.Error()
	}
	return ""
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
			if err := rt.replay.put(thread, id, carrier, []byte(`{"type":"custom_tool_call","call_id":"`+id+`","name":"shell","input":"ls"}`)); err != nil {
				t.Fatal(err)
			}
		}
	}
	base := compactJSON(t, readCapture(t, "cli-lite-exec/001-post.json"))
	k := 0
	body := conversation(t, base, 0, func(int) bool { k++; return k <= 23 })
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
	if _, err := rt.restoreReplay(thread, body); errCode(err) != CodeReplayMismatch {
		t.Fatalf("a call whose carrier the store does not match: %v, want %s", err, CodeReplayMismatch)
	}
}

// Journals are kept by age and total size, not by count: one not written
// for MaxAge goes, then the least recently written ones while all of them
// hold more than MaxTotalBytes; the rest stay, however many.
func TestReplayJournalsKeptByAgeAndBytes(t *testing.T) {
	dir := t.TempDir()
	rt := newTestRouter(t, StateDir(dir), WithReplayLimits(ReplayLimits{MaxCachedThreads: 1}))
	now := time.Now()
	threads := []string{"a", "b", "c", "d"}
	var sizes []int64
	for i, th := range threads {
		if err := rt.replay.put(th, "call_1", "carrier", []byte(`{"t":"`+th+`"}`)); err != nil {
			t.Fatal(err)
		}
		rt.replay.flush()
		p := filepath.Join(dir, journalName(th))
		// a is 91 days old, then b, c, d an hour apart.
		mod := now.Add(-time.Duration(len(threads)-i) * time.Hour)
		if th == "a" {
			mod = now.Add(-91 * 24 * time.Hour)
		}
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, fi.Size())
	}
	kept := func() []string {
		var out []string
		for _, th := range threads {
			if _, err := os.Stat(filepath.Join(dir, journalName(th))); err == nil {
				out = append(out, th)
			}
		}
		return out
	}
	rt.replay.evictFiles()
	if got := kept(); !slices.Equal(got, []string{"b", "c", "d"}) {
		t.Fatalf("kept %v after the age bound, want b c d", got)
	}
	rt.replay.lim.MaxTotalBytes = sizes[2] + sizes[3]
	rt.replay.evictFiles()
	if got := kept(); !slices.Equal(got, []string{"c", "d"}) {
		t.Fatalf("kept %v after the byte bound, want c d", got)
	}
	if _, ok := rt.replay.get("b", "call_1"); ok {
		t.Fatal("a removed journal's entries are still served")
	}
}

// An evicted thread's journal handle is closed at eviction, not a
// maintenance pass later, so a burst of new threads holds at most the
// cached threads' descriptors; the maintainer still fsyncs it by name.
func TestReplayEvictionClosesTheJournal(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, ReplayLimits{MaxEntriesPerThread: 10, MaxBytesPerThread: 1 << 20, MaxCachedThreads: 1})
	if err := s.put("a", "call_1", "c", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	a := s.locked("a")
	f := a.f
	a.mu.Unlock()
	if f == nil {
		t.Fatal("no journal handle after a put")
	}
	if err := s.put("b", "call_1", "c", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if !a.closed || a.f != nil {
		t.Fatal("thread a was not evicted with its handle")
	}
	if _, err := f.Stat(); err == nil {
		t.Fatal("the evicted thread's journal handle is still open")
	}
	s.mu.Lock()
	retired := slices.Clone(s.retired)
	s.mu.Unlock()
	if !slices.Equal(retired, []string{journalName("a")}) {
		t.Fatalf("journals left to fsync %v, want a's", retired)
	}
}
