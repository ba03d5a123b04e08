package router

import (
	"errors"
	"time"

	"hpatch-router/router/response"
)

// CallEvent and RejectionEvent are the events of package response, where
// the rewrite makes them; the router reports its own refusals of a request
// as RejectionEvents too.
type (
	CallEvent      = response.CallEvent
	RejectionEvent = response.RejectionEvent
)

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

// Active reports whether any observer listens, so callers can skip
// building events nobody reads.
func (s *observerSet) Active() bool { return s != nil && len(s.list) > 0 }

func (s *observerSet) ShellCall(e CallEvent) {
	if !s.Active() {
		return
	}
	if !s.bodies {
		e.Body = ""
		e.Interpreter = interpreterName(e.Interpreter)
	}
	for _, o := range s.list {
		o.ShellCall(e)
	}
}

// Observe reports a refused call or request to the observers, stamped
// with the time now.
func (s *observerSet) Observe(e RejectionEvent) {
	if s.Active() {
		e.Time = time.Now()
		s.rejection(e)
	}
}

func (s *observerSet) rejection(e RejectionEvent) {
	if !s.Active() {
		return
	}
	if !s.bodies || e.Detail == e.Reason {
		e.Detail = ""
	}
	for _, o := range s.list {
		o.Rejection(e)
	}
}
