package router

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// recordingRuntime records the threads PrepareThread was asked for,
// safely across the server's goroutines.
type recordingRuntime struct {
	mu      sync.Mutex
	threads []string
	err     error // what PrepareThread answers
}

func (r *recordingRuntime) PrepareThread(_ context.Context, thread string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.threads = append(r.threads, thread)
	return r.err
}

func (r *recordingRuntime) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.threads
	r.threads = nil
	return out
}

// TestEveryRequestEnsuresTheThreadRuntime: a request with a valid
// thread-id prepares that thread's runtime before anything else, whatever
// it holds and whatever the upstream answers (a carrier Codex runs later
// needs it); a request without one, or with an invalid one, prepares
// nothing.
func TestEveryRequestEnsuresTheThreadRuntime(t *testing.T) {
	rtm := &recordingRuntime{}
	h := newHarness(t, sseHandler("event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"output\":[]}}\n\n"),
		WithRuntime(rtm))
	for _, c := range []struct {
		name, path, body, thread string
		want                     []string
	}{
		{"a turn with no shell call", "/v1/responses", `{"input":[]}`, "th-1", []string{"th-1"}},
		{"a body that is not JSON", "/v1/responses", `[`, "th-2", []string{"th-2"}},
		{"a remote compaction", "/v1/responses/compact", `{"input":[]}`, "th-3", []string{"th-3"}},
		{"no thread id", "/v1/responses", `{"input":[]}`, "", nil},
		{"an invalid thread id", "/v1/responses", `{"input":[]}`, "a/b", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", h.front.URL+c.path, strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			if c.thread != "" {
				req.Header.Set("Thread-Id", c.thread)
			}
			readAll(t, h.do(req))
			if got := rtm.take(); !slices.Equal(got, c.want) {
				t.Fatalf("prepared %q, want %q", got, c.want)
			}
		})
	}
}

// TestResponseUsesTheRequestRuntimeCheck: a response whose shell calls
// run the worker relies on the check its request made: the runtime is
// prepared once per request, and a failure there reaches the model in
// each worker carrier, while a direct call runs as usual.
func TestResponseUsesTheRequestRuntimeCheck(t *testing.T) {
	s := &stream{}
	s.call("ctc_1", "call_1", "shell", "functions", pyInput, 1)
	s.call("ctc_2", "call_2", "shell", "functions", "#!node\n1", 1)
	s.call("ctc_3", "call_3", "shell", "functions", "ls", 1)
	s.completed()
	for _, fail := range []error{nil, errors.New("disk full")} {
		t.Run(fmt.Sprint("err=", fail), func(t *testing.T) {
			rtm := &recordingRuntime{err: fail}
			h := newHarness(t, sseHandler(s.String()), WithRuntime(rtm))
			req, _ := http.NewRequest("POST", h.front.URL+"/v1/responses", strings.NewReader(ownedRequest()))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Thread-Id", "th-1")
			evs := parseEvents(t, []byte(readAll(t, h.do(req))))
			if got := rtm.take(); !slices.Equal(got, []string{"th-1"}) {
				t.Fatalf("prepared %q, want th-1 once", got)
			}
			for _, id := range []string{"ctc_1", "ctc_2"} {
				got := eventsOf(evs, "response.custom_tool_call_input.done", id)[0].data["input"].(string)
				if rejected := strings.HasPrefix(got, "rejected(the router could not prepare this thread's runtime: disk full"); rejected != (fail != nil) {
					t.Fatalf("%s carrier %q with the runtime failing: %v", id, got, fail)
				}
			}
			if got := eventsOf(evs, "response.custom_tool_call_input.done", "ctc_3")[0].data["input"]; got != "carrier(direct|ls|false|)" {
				t.Fatalf("direct call: %q", got)
			}
		})
	}
}

// journalSuffix ends the name of a thread's journal in the state
// directory (package threadstate's file format).
const journalSuffix = ".replay.jsonl"

// TestStartPreparesRecentThreads: a router starting on a state directory
// prepares the runtime of each thread whose journal was written within
// the retained scripts' lifetime, so a carrier sent by the router before
// it restarted finds its runtime; older journals, other files and names
// that are no thread id are left alone.
func TestStartPreparesRecentThreads(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	for name, age := range map[string]time.Duration{
		"recent" + journalSuffix:     time.Minute,
		"edge" + journalSuffix:       recentThreadWindow - time.Minute,
		"old" + journalSuffix:        recentThreadWindow + time.Minute,
		"snapshot-x" + journalSuffix: time.Minute, // not a thread id
		".tmp-abc":                   time.Minute,
		"recent-notes.txt":           time.Minute,
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "dir"+journalSuffix), 0o700); err != nil {
		t.Fatal(err)
	}
	rtm := &recordingRuntime{}
	newTestRouter(t, WithRuntime(rtm), StateDir(dir))
	got := rtm.take()
	slices.Sort(got)
	if want := []string{"edge", "recent"}; !slices.Equal(got, want) {
		t.Fatalf("prepared %q at start, want %q", got, want)
	}

	rtm = &recordingRuntime{}
	newTestRouter(t, WithRuntime(rtm))
	if got := rtm.take(); len(got) != 0 {
		t.Fatalf("a memory-only router prepared %q at start", got)
	}
}
