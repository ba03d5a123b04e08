package router

import "sync"

// threadPoints is a bounded map of thread -> *P for the per-thread resume
// records (the request scan's scanPoint, the replay restore's
// restorePoint): one small record per thread, the least recently stored
// or used dropped first when a new thread needs room. Records are
// immutable once stored, so a caller may read one without the lock.
type threadPoints[P any] struct {
	mu     sync.Mutex
	points map[string]pointEntry[P]
	max    int
	clock  uint64
}

type pointEntry[P any] struct {
	p    *P
	used uint64 // clock at the last store or lookup
}

func newThreadPoints[P any](max int) *threadPoints[P] {
	return &threadPoints[P]{points: map[string]pointEntry[P]{}, max: max}
}

// get returns the thread's record, or nil.
func (t *threadPoints[P]) get(thread string) *P {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.points[thread]
	if !ok {
		return nil
	}
	t.clock++
	e.used = t.clock
	t.points[thread] = e
	return e.p
}

// put stores p as the thread's record, evicting the least recently used
// other thread's when the map is full.
func (t *threadPoints[P]) put(thread string, p *P) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.clock++
	if _, ok := t.points[thread]; !ok && len(t.points) >= t.max {
		oldest, used := "", uint64(0)
		for k, e := range t.points {
			if oldest == "" || e.used < used {
				oldest, used = k, e.used
			}
		}
		delete(t.points, oldest)
	}
	t.points[thread] = pointEntry[P]{p: p, used: t.clock}
}
