package router

import (
	"sync"
	"testing"
)

type recordingObserver struct {
	mu    sync.Mutex
	calls []CallEvent
	rejs  []RejectionEvent
}

func (r *recordingObserver) ShellCall(e CallEvent) {
	r.mu.Lock()
	r.calls = append(r.calls, e)
	r.mu.Unlock()
}

func (r *recordingObserver) Rejection(e RejectionEvent) {
	r.mu.Lock()
	r.rejs = append(r.rejs, e)
	r.mu.Unlock()
}

func TestObserverSetDropsBodiesUnlessEnabled(t *testing.T) {
	rec := &recordingObserver{}
	s := &observerSet{}
	if err := s.add(rec); err != nil {
		t.Fatal(err)
	}
	s.shellCall(CallEvent{CallID: "c1", Body: "#!/usr/bin/env python3\nprint(1)\n"})
	s.bodies = true
	s.shellCall(CallEvent{CallID: "c2", Body: "echo hi"})
	s.rejection(RejectionEvent{Code: "translate", Reason: "shell: bad selector"})
	if len(rec.calls) != 2 || rec.calls[0].Body != "" || rec.calls[1].Body != "echo hi" {
		t.Fatalf("calls = %+v", rec.calls)
	}
	if len(rec.rejs) != 1 || rec.rejs[0].Code != "translate" {
		t.Fatalf("rejections = %+v", rec.rejs)
	}
}

func TestObserverSetZeroAndNil(t *testing.T) {
	var nilSet *observerSet
	if nilSet.active() {
		t.Fatal("nil set is active")
	}
	nilSet.shellCall(CallEvent{}) // must not panic
	nilSet.rejection(RejectionEvent{})
	if err := nilSet.add(&recordingObserver{}); err == nil {
		t.Fatal("adding to a nil set should fail")
	}
	if (&observerSet{}).active() {
		t.Fatal("empty set is active")
	}
}

func TestWithObserverRejectsNil(t *testing.T) {
	var c config
	if err := WithObserver(nil)(&c); err == nil {
		t.Fatal("WithObserver(nil) accepted")
	}
}
