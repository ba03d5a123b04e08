package router

import (
	"context"
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
}

func (r *recordingRuntime) PrepareThread(_ context.Context, thread string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.threads = append(r.threads, thread)
	return nil
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
		WithRuntime(rtm), withRequestRewrite(ownedBy("functions")))
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

// TestStartPreparesRecentThreads: a router starting on a state directory
// prepares the runtime of each thread whose journal was written within
// the retained scripts' lifetime, so a carrier sent by the router before
// it restarted finds its runtime; older journals, other files and names
// that are no thread id are left alone.
func TestStartPreparesRecentThreads(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	for name, age := range map[string]time.Duration{
		"recent" + replayJournalSuffix:     time.Minute,
		"edge" + replayJournalSuffix:       recentThreadWindow - time.Minute,
		"old" + replayJournalSuffix:        recentThreadWindow + time.Minute,
		"snapshot-x" + replayJournalSuffix: time.Minute, // not a thread id
		replayTempPrefix + "abc":           time.Minute,
		"recent-notes.txt":                 time.Minute,
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "dir"+replayJournalSuffix), 0o700); err != nil {
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
