//go:build linux

package hsymbol

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
	environ []string       // the server's environment (serverDirs)
	root    string         // workspace root
	options map[string]any // initializationOptions, or nil
	file    string         // absolute path of the document
	text    []byte         // its content, sent with didOpen
	method  string         // textDocument/definition or textDocument/references
	line    int            // 0-based
	char    int            // UTF-16 units
}

// ask runs one LSP session: initialize, open the document, ask, shut down.
func ask(ctx context.Context, q query) ([]location, error) {
	cmd := exec.CommandContext(ctx, q.bin, q.srv.args...)
	cmd.Dir = q.root
	// gopls (through golang.org/x/telemetry) forks a setsid'd crash-monitor
	// and upload sidecar unless GO_TELEMETRY_CHILD says it is already one;
	// a one-shot query must not leave that behind in the user's shell.
	cmd.Env = append(slices.Clip(q.environ), "GO_TELEMETRY_CHILD=2")
	// The server leads its own process group so everything it started
	// (gopls runs `go list`, tsserver forks a type checker) ends with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = 2 * time.Second
	var stderr tail
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start %s: %v", q.srv.name, err)
	}
	c := newClient(q.srv.name, stdin, stdout)
	grace := time.Duration(0) // how long a server may take to exit by itself
	defer func() {
		c.stop()
		exited := make(chan struct{})
		go func() { waitExited(cmd.Process.Pid); close(exited) }()
		select {
		case <-exited:
		case <-time.After(grace):
			_ = killGroup(cmd)
			<-exited
		}
		// The leader has exited but is not reaped: as a zombie it keeps its
		// pid, so the group id still names our group while we end what the
		// server left in it. Only then is it reaped.
		_ = killGroup(cmd)
		_ = cmd.Wait()
	}()
	locs, err := converse(ctx, c, q)
	if err != nil {
		if last := stderr.last(); last != "" {
			err = fmt.Errorf("%v (%s said: %s)", err, q.srv.name, last)
		}
		return nil, err
	}
	// A polite end: the server gets a moment to exit; one that lingers is
	// killed by the deferred cleanup.
	sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if c.call(sctx, "shutdown", nil, nil) == nil {
		_ = c.notify("exit", nil)
		grace = time.Second
	}
	_ = stdin.Close()
	return locs, nil
}

func converse(ctx context.Context, c *client, q query) ([]location, error) {
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
	if err := c.call(ctx, "initialize", init, nil); err != nil {
		return nil, err
	}
	if err := c.notify("initialized", map[string]any{}); err != nil {
		return nil, err
	}
	docURI := fileURI(q.file)
	open := map[string]any{"textDocument": map[string]any{
		"uri": docURI, "languageId": q.srv.languageID, "version": 1, "text": string(q.text),
	}}
	if err := c.notify("textDocument/didOpen", open); err != nil {
		return nil, err
	}
	params := map[string]any{
		"textDocument": map[string]any{"uri": docURI},
		"position":     map[string]any{"line": q.line, "character": q.char},
	}
	if q.method == "textDocument/references" {
		params["context"] = map[string]any{"includeDeclaration": true}
	}
	var raw json.RawMessage
	if err := c.call(ctx, q.method, params, &raw); err != nil {
		return nil, err
	}
	return parseLocations(raw)
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
			return nil, fmt.Errorf("unreadable location: %v", err)
		}
		items = []item{one}
	} else if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("unreadable locations: %v", err)
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
