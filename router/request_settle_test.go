package router

import (
	"context"
	"testing"
	"time"

	"hpatch-router/retain"
	"hpatch-router/router/history"
)

// A thread's first request restores its scripts from the history, once.
func TestRestoreScriptsOncePerThread(t *testing.T) {
	scripts := newFakeScripts()
	rt := newTestRouter(t, WithScripts(scripts), StateDir(t.TempDir()))
	if err := rt.replay.Commit("thread-1", []retain.Committed{{Call: "c", At: time.Now(), Retain: "c", Content: "x"}}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		rt.history.Apply(context.Background(), history.Turn{Thread: "thread-1"})
		rt.history.Apply(context.Background(), history.Turn{Thread: "thread-2"})
	}
	if len(scripts.restores) != 1 || scripts.restores[0][0].Call != "c" {
		t.Fatalf("restores %+v, want one with the thread's history", scripts.restores)
	}
}
