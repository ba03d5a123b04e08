//go:build linux

package hsymbol

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"hpatch-router/worker/privcmd"
)

// location is one answer of the server: a file and a 0-based line range.
type location struct {
	path      string // absolute
	startLine int
	endLine   int
}

// query is one question to one server.
type query struct {
	srv     server
	bin     string         // the server's executable
	root    string         // workspace root
	options map[string]any // initializationOptions, or nil
	file    string         // absolute path of the document
	text    []byte         // its content, sent with didOpen
	method  string         // textDocument/definition or textDocument/references
	line    int            // 0-based
	char    int            // UTF-16 units
}

// session is one running language server for one workspace root. The
// hsymbol calls of a run that ask the same server about the same root
// share it (Sessions); it ends with the run, or earlier when a call fails
// or the workspace changed.
type session struct {
	srv    server
	root   string
	cmd    *exec.Cmd
	stdin  io.Closer
	c      *client
	stderr *tail
	dirs   *serverDirs
	exited chan struct{} // closed when the server's leader has exited (not yet reaped)
	tree   tree          // the workspace's source files when the server started

	docMu sync.Mutex // a document is opened or changed before any request about it
	docs  map[string]document

	mu     sync.Mutex // reaped, so no signal reaches a reused group id
	reaped bool

	endOnce sync.Once
}

// document is what the server holds of an open file.
type document struct {
	version int
	sum     [sha256.Size]byte
}

// startSession starts q's server in q.root with the writable directories
// env needs (roots: candidate parents of its private directory) and
// initializes it within ctx.
func startSession(ctx context.Context, env *privcmd.Env, q query, roots []string) (*session, error) {
	// The snapshot comes first: a file changed after it is a reason to
	// restart, whatever the server already read.
	tree, err := snapshotTree(ctx, q.root, q.srv)
	if err != nil {
		return nil, err
	}
	dirs, err := newServerDirs(env, q.srv, roots)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(q.bin, q.srv.args...)
	cmd.Dir = q.root
	// gopls (through golang.org/x/telemetry) forks a setsid'd crash-monitor
	// and upload sidecar unless GO_TELEMETRY_CHILD says it is already one;
	// a query must not leave that behind in the user's shell.
	cmd.Env = append(slices.Clip(dirs.environ), "GO_TELEMETRY_CHILD=2")
	// The server leads its own process group so everything it started
	// (gopls runs `go list`, tsserver forks a type checker) ends with it;
	// if the worker dies without ending the run, the server dies too
	// (privcmd.Start).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 2 * time.Second
	s := &session{srv: q.srv, root: q.root, cmd: cmd, stderr: &tail{}, dirs: dirs, tree: tree,
		exited: make(chan struct{}), docs: map[string]document{}}
	cmd.Stderr = s.stderr
	stdin, err := cmd.StdinPipe()
	if err == nil {
		s.stdin = stdin
		var stdout io.Reader
		if stdout, err = cmd.StdoutPipe(); err == nil {
			if err = privcmd.Start(cmd); err == nil {
				s.c = startClient(q.srv.name, stdin, stdout)
			}
		}
	}
	if err != nil {
		dirs.remove()
		return nil, fmt.Errorf("cannot start %s: %w", q.srv.name, err)
	}
	go func() { waitExited(cmd.Process.Pid); close(s.exited) }()
	stop := context.AfterFunc(ctx, s.kill)
	defer stop()
	if err := s.initialize(ctx, q); err != nil {
		s.end(false)
		return nil, s.explain(err)
	}
	return s, nil
}

func (s *session) initialize(ctx context.Context, q query) error {
	rootURI := fileURI(q.root)
	init := map[string]any{
		"processId":        os.Getpid(),
		"clientInfo":       map[string]any{"name": "hsymbol"},
		"rootUri":          rootURI,
		"rootPath":         q.root,
		"workspaceFolders": []any{map[string]any{"uri": rootURI, "name": filepath.Base(q.root)}},
		"capabilities": map[string]any{
			"general": map[string]any{"positionEncodings": []string{"utf-16"}},
			"textDocument": map[string]any{
				"synchronization": map[string]any{},
				"definition":      map[string]any{"linkSupport": true},
				"references":      map[string]any{},
			},
			"workspace": map[string]any{"workspaceFolders": true},
		},
	}
	if q.options != nil {
		init["initializationOptions"] = q.options
	}
	if err := s.c.call(ctx, "initialize", init, nil); err != nil {
		return err
	}
	return s.c.notify("initialized", map[string]any{})
}

// ask puts q to the running server: the document is opened (or updated)
// first. ctx ending before the answer kills the server.
func (s *session) ask(ctx context.Context, q query) ([]location, error) {
	stop := context.AfterFunc(ctx, s.kill)
	defer stop()
	docURI := fileURI(q.file)
	if err := s.open(docURI, q.text); err != nil {
		return nil, s.explain(fmt.Errorf("%s stopped reading: %w", s.srv.name, err))
	}
	params := map[string]any{
		"textDocument": map[string]any{"uri": docURI},
		"position":     map[string]any{"line": q.line, "character": q.char},
	}
	if q.method == "textDocument/references" {
		params["context"] = map[string]any{"includeDeclaration": true}
	}
	var raw json.RawMessage
	if err := s.c.call(ctx, q.method, params, &raw); err != nil {
		return nil, s.explain(err)
	}
	return parseLocations(raw)
}

// open sends text as the document's content unless the server already
// holds exactly that: didOpen the first time, a full didChange after.
func (s *session) open(uri string, text []byte) error {
	s.docMu.Lock()
	defer s.docMu.Unlock()
	sum := sha256.Sum256(text)
	d, known := s.docs[uri]
	if known && d.sum == sum {
		return nil
	}
	var err error
	if !known {
		err = s.c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri, "languageId": s.srv.languageID, "version": 1, "text": string(text)}})
		d.version = 1
	} else {
		d.version++
		err = s.c.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": d.version},
			"contentChanges": []any{map[string]any{"text": string(text)}}})
	}
	if err == nil {
		d.sum = sum
		s.docs[uri] = d
	}
	return err
}

// explain adds the server's last stderr line to a failure, which often
// says why (a missing module, a crash).
func (s *session) explain(err error) error {
	var answer *responseError
	if errors.As(err, &answer) {
		return err
	}
	if last := s.stderr.last(); last != "" {
		return fmt.Errorf("%w (%s said: %s)", err, s.srv.name, last)
	}
	return err
}

// alive reports whether the server is still running and talking.
func (s *session) alive() bool {
	select {
	case <-s.exited:
		return false
	case <-s.c.ended:
		return false
	default:
		return true
	}
}

// end stops the server once: politely (shutdown, exit, a second to go by
// itself) when asked and it is alive, then its whole process group is
// killed and the leader reaped; the private directory goes last.
func (s *session) end(polite bool) {
	s.endOnce.Do(func() {
		grace := time.Duration(0)
		if polite && s.alive() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			if s.c.call(ctx, "shutdown", nil, nil) == nil && s.c.notify("exit", nil) == nil {
				grace = time.Second
			}
			cancel()
		}
		_ = s.stdin.Close()
		select {
		case <-s.exited:
		case <-time.After(grace):
			s.kill()
			<-s.exited
		}
		// The leader has exited but is not reaped: as a zombie it keeps its
		// pid, so the group id still names our group while we end what the
		// server left in it. Only then is it reaped.
		s.mu.Lock()
		_ = killGroup(s.cmd)
		s.reaped = true
		s.mu.Unlock()
		_ = s.cmd.Wait()
		drainGroup(s.cmd.Process.Pid, groupDrainWait)
		s.c.stop()
		s.dirs.remove()
	})
}

// kill ends the server's process group at once (a call ran out of time or
// was cancelled); end still reaps it.
func (s *session) kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.reaped {
		_ = killGroup(s.cmd)
	}
}

// parseLocations reads Location | Location[] | LocationLink[] | null.
func parseLocations(raw json.RawMessage) ([]location, error) {
	type pos struct {
		Line int `json:"line"`
	}
	type rng struct {
		Start pos `json:"start"`
		End   pos `json:"end"`
	}
	type item struct {
		URI                  string `json:"uri"`
		Range                *rng   `json:"range"`
		TargetURI            string `json:"targetUri"`
		TargetRange          *rng   `json:"targetRange"`
		TargetSelectionRange *rng   `json:"targetSelectionRange"`
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var items []item
	if raw[0] == '{' {
		var one item
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, fmt.Errorf("unreadable location: %w", err)
		}
		items = []item{one}
	} else if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("unreadable locations: %w", err)
	}
	var out []location
	for _, it := range items {
		uri, r := it.URI, it.Range
		if uri == "" {
			uri, r = it.TargetURI, it.TargetSelectionRange
			if r == nil {
				r = it.TargetRange
			}
		}
		u, err := url.Parse(uri)
		if err != nil || u.Scheme != "file" || r == nil {
			continue // not a file on disk (e.g. a virtual document)
		}
		out = append(out, location{path: filepath.Clean(u.Path), startLine: r.Start.Line, endLine: r.End.Line})
	}
	return out, nil
}

// fileURI is the file: URI of an absolute path.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// tail keeps the last 2 KiB a server wrote on stderr.
type tail struct {
	mu  sync.Mutex // the server's stderr is copied on another goroutine
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2048 {
		t.buf = t.buf[len(t.buf)-2048:]
	}
	return len(p), nil
}

// last is the last non-empty line, trimmed to one line of 200 bytes.
func (t *tail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	s := strings.TrimSpace(lines[len(lines)-1])
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// killGroup ends the server's process group. The group id is the leader's
// pid; callers signal only while the leader is unreaped (running or a
// zombie), so the id cannot have been reused by another process.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// waitExited blocks until process pid has exited, leaving it unreaped.
func waitExited(pid int) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return
		}
	}
}

// groupDrainWait bounds how long end waits for the server's killed group
// to be gone.
const groupDrainWait = 2 * time.Second

// drainGroup waits until no process of group pgid is left, reaping the
// members the worker inherited as subreaper. SIGKILL is delivered, not
// finished, when kill returns: a language server's own children (tsserver
// under typescript-language-server) are still exiting and, once their
// parent is gone, live children of the worker, which the end of the run
// would report as the script's detached processes. Zombies still belong
// to the group, so an empty group means every member is reaped.
func drainGroup(pgid int, wait time.Duration) {
	deadline := time.Now().Add(wait)
	for {
		for {
			var ws unix.WaitStatus
			pid, err := unix.Wait4(-pgid, &ws, unix.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
		if unix.Kill(-pgid, 0) == unix.ESRCH || !time.Now().Before(deadline) {
			return
		}
		_ = unix.Kill(-pgid, unix.SIGKILL)
		time.Sleep(5 * time.Millisecond)
	}
}
