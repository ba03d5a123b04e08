package appserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Session describes one app-server process and thread.
type Session struct {
	Codex        string          // Codex CLI binary
	Dir          string          // working directory of app-server and cwd of the thread
	Env          []string        // environment (CODEX_HOME, provider key, PATH, …)
	ClientName   string          // clientInfo.name; default "research-driver"
	Experimental bool            // capabilities.experimentalApi
	DynamicTools json.RawMessage // thread/start dynamicTools, when set
	Sandbox      string          // thread/start sandbox; default "danger-full-access"
	Log          io.Writer       // receives every line both ways as {"dir","t","msg"}; may be nil
	// TurnBound stops waiting for one turn; default 3 minutes.
	TurnBound time.Duration
}

// Result is what a session saw.
type Result struct {
	ThreadID string
	// Turns holds each turn/completed notification's params.turn, in order.
	Turns []json.RawMessage
	// Messages are every server message, in arrival order.
	Messages []json.RawMessage
}

// conn is one running app-server.
type conn struct {
	in    io.Writer
	inbox chan json.RawMessage
	log   io.Writer
	logMu sync.Mutex
	next  int
	seen  []json.RawMessage
}

type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func (c *conn) logLine(dir string, msg []byte) {
	if c.log == nil {
		return
	}
	c.logMu.Lock()
	defer c.logMu.Unlock()
	fmt.Fprintf(c.log, `{"dir":%q,"t":%d,"msg":%s}`+"\n", dir, time.Now().UnixMilli(), msg)
}

func (c *conn) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.logLine("c2s", b)
	_, err = c.in.Write(append(b, '\n'))
	return err
}

func (c *conn) request(method string, params any) (int, error) {
	c.next++
	return c.next, c.send(map[string]any{"id": c.next, "method": method, "params": params})
}

// pump reads messages until done reports true for one, answering server
// requests on the way.
func (c *conn) pump(ctx context.Context, bound time.Duration, done func(message) bool) (message, error) {
	timer := time.NewTimer(bound)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return message{}, ctx.Err()
		case <-timer.C:
			return message{}, fmt.Errorf("app-server: no reply within %s", bound)
		case raw, ok := <-c.inbox:
			if !ok {
				return message{}, errors.New("app-server exited")
			}
			c.seen = append(c.seen, raw)
			var m message
			if json.Unmarshal(raw, &m) != nil {
				continue
			}
			if m.Method != "" && len(m.ID) > 0 {
				if err := c.send(map[string]any{"id": m.ID, "result": answer(m.Method)}); err != nil {
					return message{}, err
				}
				continue
			}
			if done(m) {
				return m, nil
			}
		}
	}
}

// answer is the generic reply to a server request.
func answer(method string) any {
	switch {
	case method == "item/tool/call":
		return map[string]any{"contentItems": []any{map[string]any{"type": "inputText", "text": "dynamic tool ok"}}, "success": true}
	case strings.Contains(strings.ToLower(method), "approval"):
		return map[string]any{"decision": "accept"}
	}
	return map[string]any{}
}

func hasID(id int) func(message) bool {
	return func(m message) bool { return string(m.ID) == fmt.Sprint(id) }
}

// Run starts app-server, opens a thread and plays one turn per prompt.
func (s Session) Run(ctx context.Context, prompts ...string) (Result, error) {
	cmd := exec.CommandContext(ctx, s.Codex, "app-server")
	cmd.Dir, cmd.Env = s.Dir, s.Env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return Result{}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return Result{}, err
	}
	if err := cmd.Start(); err != nil {
		return Result{}, err
	}
	readCtx, stopRead := context.WithCancel(ctx)
	c := &conn{in: stdin, inbox: make(chan json.RawMessage, 256), log: s.Log}
	go c.read(readCtx, stdout)
	res, err := s.session(ctx, c, prompts)
	res.Messages = c.seen
	stdin.Close()
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
	stopRead()
	if err != nil {
		return res, fmt.Errorf("%w\napp-server stderr:\n%s", err, stderr.String())
	}
	return res, nil
}

func (c *conn) read(ctx context.Context, r io.Reader) {
	defer close(c.inbox)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || !json.Valid(line) {
			continue
		}
		c.logLine("s2c", line)
		select {
		case c.inbox <- json.RawMessage(bytes.Clone(line)):
		case <-ctx.Done():
			return
		}
	}
}

func (s Session) session(ctx context.Context, c *conn, prompts []string) (Result, error) {
	var res Result
	client := s.ClientName
	if client == "" {
		client = "research-driver"
	}
	var caps any
	if s.Experimental {
		caps = map[string]any{"experimentalApi": true}
	}
	id, err := c.request("initialize", map[string]any{
		"clientInfo":   map[string]any{"name": client, "title": "hpatch-router tests", "version": "0.0.1"},
		"capabilities": caps,
	})
	if err != nil {
		return res, err
	}
	if _, err := c.pump(ctx, time.Minute, hasID(id)); err != nil {
		return res, err
	}
	if err := c.send(map[string]any{"method": "initialized"}); err != nil {
		return res, err
	}
	sandbox := s.Sandbox
	if sandbox == "" {
		sandbox = "danger-full-access"
	}
	params := map[string]any{"cwd": s.Dir, "approvalPolicy": "never", "sandbox": sandbox}
	if len(s.DynamicTools) > 0 {
		params["dynamicTools"] = s.DynamicTools
	}
	if id, err = c.request("thread/start", params); err != nil {
		return res, err
	}
	m, err := c.pump(ctx, time.Minute, hasID(id))
	if err != nil {
		return res, err
	}
	if len(m.Error) > 0 {
		return res, fmt.Errorf("thread/start: %s", m.Error)
	}
	var started struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	if err := json.Unmarshal(m.Result, &started); err != nil || started.Thread.ID == "" {
		return res, fmt.Errorf("thread/start result %s: %w", m.Result, err)
	}
	res.ThreadID = started.Thread.ID
	bound := s.TurnBound
	if bound == 0 {
		bound = 3 * time.Minute
	}
	for _, p := range prompts {
		id, err := c.request("turn/start", map[string]any{"threadId": res.ThreadID,
			"input": []any{map[string]any{"type": "text", "text": p}}})
		if err != nil {
			return res, err
		}
		if m, err := c.pump(ctx, time.Minute, hasID(id)); err != nil {
			return res, err
		} else if len(m.Error) > 0 {
			return res, fmt.Errorf("turn/start: %s", m.Error)
		}
		done, err := c.pump(ctx, bound, func(m message) bool { return m.Method == "turn/completed" })
		if err != nil {
			return res, err
		}
		var p struct {
			Turn json.RawMessage `json:"turn"`
		}
		_ = json.Unmarshal(done.Params, &p)
		res.Turns = append(res.Turns, p.Turn)
	}
	return res, nil
}
