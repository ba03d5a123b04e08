package router

import (
	"testing"
	"time"

	"hpatch-router/retain"
)

// creatingRuntime is a Runtime that says whether it created each thread
// directory, as package worker's does.
type creatingRuntime struct {
	fakeRuntime
	created bool
}

func (c *creatingRuntime) PrepareThreadCreated(ctx ctxT, thread string) (bool, error) {
	return c.created, c.PrepareThread(ctx, thread)
}

// TestRestoreCreatedThread (issue 33 case 3): a thread's first request
// restores its scripts from the journal; a later one restores them again
// only when the runtime created the thread's directory anew (removed while
// the router ran, alone or with the runtime root). A runtime that cannot
// tell, or a directory that was there, restores nothing more, and a
// thread without history nothing at all.
func TestRestoreCreatedThread(t *testing.T) {
	for _, tc := range []struct {
		name    string
		runtime Runtime
		thread  string
		want    int // restores over two requests
	}{
		{"directory created again", &creatingRuntime{created: true}, "thread-1", 2},
		{"directory was there", &creatingRuntime{}, "thread-1", 1},
		{"runtime that cannot tell", &fakeRuntime{}, "thread-1", 1},
		{"thread without history", &creatingRuntime{created: true}, "thread-2", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scripts := newFakeScripts()
			s := &stream{}
			s.completed()
			h := newHarness(t, sseHandler(s.String()),
				WithScripts(scripts), WithRuntime(tc.runtime), StateDir(t.TempDir()))
			if err := h.router.replay.Commit("thread-1", []retain.Committed{{Call: "c", At: time.Now(), Retain: "c", Content: "x"}}); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				readAll(t, h.post(ownedRequest(), "Thread-Id", tc.thread))
			}
			if got := len(scripts.restores); got != tc.want {
				t.Fatalf("%d restores, want %d", got, tc.want)
			}
		})
	}
}
