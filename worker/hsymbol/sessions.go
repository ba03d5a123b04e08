//go:build linux

package hsymbol

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"hpatch-router/rows"
	"hpatch-router/worker/privcmd"
)

// Sessions are the language servers of one worker run. The first hsymbol
// call that needs a server for a workspace root starts it; later calls
// asking the same server (same executable and environment) about the same
// root reuse it, concurrent ones included (their requests share the
// connection). A session is replaced instead when its server exited since
// the previous call (said in one line), or when the workspace's sources
// changed on disk since it started (the server would answer from what it
// read then); in a workspace too large to check, it serves one call. A
// call that fails other than by the server's own error answer ends it. A
// new server beyond maxServers ends the least recently used idle one.
// Close, at the end of the run, ends every server and its process group.
type Sessions struct {
	set settings

	mu     sync.Mutex
	closed bool
	slots  map[string]*slot
	live   map[*session]*use // every session not yet ended
	takes  int               // calls that took a session, for use.last
}

// slot is the place of the session for one (server, root, environment).
type slot struct {
	turn chan struct{} // one token: who may start or replace the session
	s    *session      // guarded by Sessions.mu
}

// use is how a live session is used: calls in flight, whether it was
// replaced (it ends when the last of them does), its slot, and when a call
// last took it (a count of takes in the run).
type use struct {
	calls   int
	retired bool
	slot    *slot
	last    int
}

// maxServers bounds the servers a run keeps: a script that visits many
// roots, or changes its environment on every call, must not gather a
// language server (hundreds of MB each) per question. Four hold gopls,
// pyright and typescript-language-server for one mixed repository and
// one more; beyond them the least recently used idle one ends.
const maxServers = 4

// NewSessions returns the sessions of one run; the run must Close them.
func NewSessions() *Sessions { return newSessions(settings{}) }

func newSessions(set settings) *Sessions {
	return &Sessions{set: set, slots: map[string]*slot{}, live: map[*session]*use{}}
}

var errClosed = errors.New("the run is ending; no language server starts any more")

// ask answers q from the session of q's server and root, started or
// replaced as needed. A reused server found dead by the request (it exited
// since the previous call, or as the request reached it) is started again
// once, with one line on env.Stderr.
func (pool *Sessions) ask(ctx context.Context, env *privcmd.Env, q query) ([]location, error) {
	sl, err := pool.slot(sessionKey(q, env.Environ))
	if err != nil {
		return nil, err
	}
	restarted := false
	for {
		s, reused, err := pool.acquire(ctx, env, sl, q)
		if err != nil {
			return nil, err
		}
		locs, err := s.ask(ctx, q)
		var answer *responseError
		failed := err != nil && !errors.As(err, &answer)
		pool.release(sl, s, failed)
		if !failed || !reused || restarted || ctx.Err() != nil {
			return locs, err
		}
		noteRestart(env, s)
		restarted = true
	}
}

// noteRestart says, in one line, that s's server is gone and starts again.
func noteRestart(env *privcmd.Env, s *session) {
	said := ""
	if last := s.stderr.last(); last != "" {
		said = " (" + last + ")"
	}
	fmt.Fprintf(env.Stderr, "hsymbol: %s\n", rows.OneLineEscaped(fmt.Sprintf(
		"%s exited since the previous call%s; starting it again", s.srv.name, said)))
}

func (pool *Sessions) slot(key string) (*slot, error) {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if pool.closed {
		return nil, errClosed
	}
	sl, ok := pool.slots[key]
	if !ok {
		sl = &slot{turn: make(chan struct{}, 1)}
		pool.slots[key] = sl
	}
	return sl, nil
}

// acquire returns the slot's session with this call counted on it, and
// whether an earlier call started it. It starts one when there is none or
// the workspace changed.
func (pool *Sessions) acquire(ctx context.Context, env *privcmd.Env, sl *slot, q query) (*session, bool, error) {
	select {
	case sl.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, false, fmt.Errorf("%s did not start in time: %w", q.srv.name, context.Cause(ctx))
	}
	defer func() { <-sl.turn }()
	if s := pool.current(sl); s != nil {
		switch {
		case pool.changed(ctx, s):
			pool.retire(sl, s)
		case pool.take(sl, s):
			return s, true, nil
		default:
			return nil, false, errClosed
		}
	}
	pool.makeRoom()
	roots := pool.set.tempRoots
	if roots == nil {
		roots = tempRoots(env)
	}
	s, err := startSession(ctx, env, q, roots)
	if err != nil {
		return nil, false, err
	}
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if pool.closed {
		go s.end(false)
		return nil, false, errClosed
	}
	sl.s = s
	pool.takes++
	pool.live[s] = &use{calls: 1, slot: sl, last: pool.takes}
	return s, false, nil
}

// makeRoom ends the least recently used idle server while a new one would
// make more than maxServers. Servers answering calls are left alone: how
// many of those run at once is the script's own concurrency.
func (pool *Sessions) makeRoom() {
	for {
		pool.mu.Lock()
		var oldest *session
		for s, u := range pool.live {
			if len(pool.live) >= maxServers && u.calls == 0 && (oldest == nil || u.last < pool.live[oldest].last) {
				oldest = s
			}
		}
		if oldest == nil {
			pool.mu.Unlock()
			return
		}
		if sl := pool.live[oldest].slot; sl.s == oldest {
			sl.s = nil
		}
		delete(pool.live, oldest)
		pool.mu.Unlock()
		oldest.end(true)
	}
}

// changed reports whether s's workspace sources differ from when it
// started, or cannot be checked.
func (pool *Sessions) changed(ctx context.Context, s *session) bool {
	now, err := snapshotTree(ctx, s.root, s.srv)
	return err != nil || !now.checked || now.sum != s.tree.sum
}

// current is the slot's session, if any.
func (pool *Sessions) current(sl *slot) *session {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	return sl.s
}

// take counts a call on s, unless the run is ending.
func (pool *Sessions) take(sl *slot, s *session) bool {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	u := pool.live[s]
	if pool.closed || sl.s != s || u == nil {
		return false
	}
	u.calls++
	pool.takes++
	u.last = pool.takes
	return true
}

// retire takes s out of its slot. It shuts down now when no call is
// using it, else with the last of those calls.
func (pool *Sessions) retire(sl *slot, s *session) {
	pool.mu.Lock()
	if sl.s == s {
		sl.s = nil
	}
	u := pool.live[s]
	if u != nil && u.calls > 0 {
		u.retired = true
		pool.mu.Unlock()
		return
	}
	delete(pool.live, s)
	pool.mu.Unlock()
	s.end(true)
}

// release ends a call on s. A failed call ends the session at once (a
// server that ran out of time, or whose stream broke, is not trusted
// again); a retired session, or one whose workspace could not be
// checked, ends with its last call.
func (pool *Sessions) release(sl *slot, s *session, failed bool) {
	pool.mu.Lock()
	u := pool.live[s]
	if u == nil { // already ended: the run is closing, or another call failed
		pool.mu.Unlock()
		return
	}
	u.calls--
	if !failed && (u.calls > 0 || !u.retired && s.tree.checked) {
		pool.mu.Unlock()
		return
	}
	if sl.s == s {
		sl.s = nil
	}
	delete(pool.live, s)
	pool.mu.Unlock()
	s.end(!failed)
}

// Close ends every session: idle servers are asked to shut down, servers
// still answering a call are killed; each one's process group is killed
// and its leader reaped before Close returns. No session starts after it.
func (pool *Sessions) Close() {
	pool.mu.Lock()
	pool.closed = true
	live := pool.live
	pool.live = map[*session]*use{}
	for _, sl := range pool.slots {
		sl.s = nil
	}
	pool.mu.Unlock()
	var wg sync.WaitGroup
	for s, u := range live {
		wg.Go(func() { s.end(u.calls == 0) })
	}
	wg.Wait()
}

// sessionKey names what a session is for: the server, its executable, the
// workspace root and the environment it starts with (a script that
// changes GOFLAGS or PATH between calls gets a server that sees the
// change). PWD and OLDPWD are left out: the server runs in the root
// whatever the shell's cwd.
func sessionKey(q query, environ []string) string {
	vars := make([]string, 0, len(environ))
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "PWD=") && !strings.HasPrefix(kv, "OLDPWD=") {
			vars = append(vars, kv)
		}
	}
	slices.Sort(vars)
	return strings.Join(append([]string{q.srv.name, q.bin, q.root}, vars...), "\x00")
}
