package router

import "sync"

// threadStreams counts the responses of each thread being rewritten: the
// history stage takes no call as gone while one streams (its calls are
// not in any request yet).
type threadStreams struct {
	mu sync.Mutex
	n  map[string]int
}

func (ts *threadStreams) begin(thread string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.n == nil {
		ts.n = map[string]int{}
	}
	ts.n[thread]++
}

func (ts *threadStreams) end(thread string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.n[thread]--; ts.n[thread] <= 0 {
		delete(ts.n, thread)
	}
}

func (ts *threadStreams) active(thread string) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.n[thread] > 0
}
