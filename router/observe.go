package router

import (
	"errors"
	"time"
)

// CallEvent describes one model `shell` call the router answered with an
// exec carrier. It is what an Observer (e.g. the dashboard) sees; it never
// carries credentials, and carries the script body only when the router was
// built with bodies enabled (see WithObserverBodies).
type CallEvent struct {
	Time        time.Time     // when the carrier was emitted
	Thread      string        // the request's thread id ("" when absent)
	CallID      string        // the model's call_id
	Kind        string        // direct, worker, template, rerun, recovered, or "rejected"
	Interpreter string        // interpreter named by the shebang ("" for none)
	Duration    time.Duration // from the upstream response start until the carrier was emitted
	Warnings    []string      // shell warnings placed in the carrier
	ScriptRef   string        // "@shell/<id>" when the script was retained
	// ModelBytes is the size of the shell input the model wrote;
	// CarrierBytes the size of the exec JavaScript that replaced it.
	ModelBytes, CarrierBytes int
	Body                     string // the model's shell input; only filled when bodies are enabled
}

// RejectionEvent describes a call or request the router refused: a request
// layout it cannot rewrite (Code is one of the Code* constants) or a shell
// call answered with a diagnostic carrier (Code is the rejection reason,
// e.g. "translate", "script_reference", "runtime", "hpatch").
type RejectionEvent struct {
	Time   time.Time
	Thread string
	Code   string
	Reason string // one line, as the model or the user sees it
}

// Observer receives the router's call and rejection events. Methods are
// called synchronously on the request path, so they must return quickly
// and must not block (buffer or drop instead); they may be called
// concurrently.
type Observer interface {
	ShellCall(CallEvent)
	Rejection(RejectionEvent)
}

// observerSet fans events out to every observer given with WithObserver;
// the zero value observes nothing.
type observerSet struct {
	list   []Observer
	bodies bool
}

func (s *observerSet) add(o Observer) error {
	if s == nil {
		return errors.New("no observer set to add to")
	}
	s.list = append(s.list, o)
	return nil
}

// active reports whether any observer listens, so callers can skip
// building events nobody reads.
func (s *observerSet) active() bool { return s != nil && len(s.list) > 0 }

func (s *observerSet) shellCall(e CallEvent) {
	if !s.active() {
		return
	}
	if !s.bodies {
		e.Body = ""
	}
	for _, o := range s.list {
		o.ShellCall(e)
	}
}

func (s *observerSet) rejection(e RejectionEvent) {
	if !s.active() {
		return
	}
	for _, o := range s.list {
		o.Rejection(e)
	}
}

// WithObserver adds an Observer of shell calls and rejections. It may be
// given more than once; every observer sees every event.
func WithObserver(o Observer) Option {
	return func(c *config) error {
		if o == nil {
			return errors.New("observer must not be nil")
		}
		return c.observers.add(o)
	}
}

// WithObserverBodies lets observers see script bodies (CallEvent.Body).
// Off by default: bodies may hold anything the model wrote.
func WithObserverBodies(on bool) Option {
	return func(c *config) error { c.observers.bodies = on; return nil }
}
