package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// appRun drives `codex app-server` (JSON-RPC, one object per line):
// initialize, initialized, thread/start, then turn/start per prompt until
// turn/completed. Server requests (approvals, dynamic tool calls) get a
// generic accept so a turn never hangs.
type appRun struct {
	client       string // clientInfo.name; default "research-driver"
	experimental bool   // capabilities.experimentalApi
	dynamicTools string // file (in the capture scenario dir) for thread/start dynamicTools
	prompts      []string
}

// rpcConn is one app-server session; every line both ways goes to log.
type rpcConn struct {
	in    io.Writer
	inbox chan map[string]json.RawMessage
	log   *bytes.Buffer
	logMu sync.Mutex
	next  int
}

func (c *rpcConn) logLine(dir string, msg []byte) {
	c.logMu.Lock()
	defer c.logMu.Unlock()
	fmt.Fprintf(c.log, `{"dir":%q,"t":%d,"msg":%s}`+"\n", dir, time.Now().UnixMilli(), msg)
}

func (c *rpcConn) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.logLine("c2s", b)
	_, err = c.in.Write(append(b, '\n'))
	return err
}

func (c *rpcConn) request(method string, params any) (int, error) {
	c.next++
	return c.next, c.send(map[string]any{"id": c.next, "method": method, "params": params})
}

// pump reads messages until done reports true for one, answering server
// requests on the way.
func (c *rpcConn) pump(ctx context.Context, bound time.Duration, done func(map[string]json.RawMessage) bool) (map[string]json.RawMessage, error) {
	timer := time.NewTimer(bound)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
			return nil, errors.New("app-server: timed out waiting for a reply")
		case msg, ok := <-c.inbox:
			if !ok {
				return nil, errors.New("app-server exited")
			}
			if _, isReq := msg["method"]; isReq && msg["id"] != nil {
				var method string
				_ = json.Unmarshal(msg["method"], &method)
				result := map[string]any{}
				switch {
				case method == "item/tool/call":
					result = map[string]any{"contentItems": []any{map[string]any{"type": "inputText", "text": "dynamic tool ok"}}, "success": true}
				case strings.Contains(strings.ToLower(method), "approval"):
					result = map[string]any{"decision": "accept"}
				}
				if err := c.send(map[string]any{"id": msg["id"], "result": result}); err != nil {
					return nil, err
				}
				continue
			}
			if done(msg) {
				return msg, nil
			}
		}
	}
}

func hasID(id int) func(map[string]json.RawMessage) bool {
	return func(m map[string]json.RawMessage) bool { return string(m["id"]) == fmt.Sprint(id) }
}

func (a *appRun) drive(ctx context.Context, codex, ws string, env []string, scenarioDir string, log *bytes.Buffer) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, "app-server")
	cmd.Dir, cmd.Env = ws, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}()
	c := &rpcConn{in: stdin, inbox: make(chan map[string]json.RawMessage, 64), log: log}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			c.logLine("s2c", line)
			var msg map[string]json.RawMessage
			if json.Unmarshal(line, &msg) != nil {
				continue
			}
			select {
			case c.inbox <- msg:
			case <-ctx.Done():
				return
			}
		}
		close(c.inbox)
	}()
	if err := a.session(ctx, c, ws, scenarioDir); err != nil {
		return fmt.Errorf("%w\napp-server stderr:\n%s", err, stderr.String())
	}
	return nil
}

func (a *appRun) session(ctx context.Context, c *rpcConn, ws, scenarioDir string) error {
	client := a.client
	if client == "" {
		client = "research-driver"
	}
	var caps any
	if a.experimental {
		caps = map[string]any{"experimentalApi": true}
	}
	id, err := c.request("initialize", map[string]any{
		"clientInfo":   map[string]any{"name": client, "title": "recapture", "version": "0.0.1"},
		"capabilities": caps,
	})
	if err != nil {
		return err
	}
	if _, err := c.pump(ctx, time.Minute, hasID(id)); err != nil {
		return err
	}
	if err := c.send(map[string]any{"method": "initialized"}); err != nil {
		return err
	}
	params := map[string]any{"cwd": ws, "approvalPolicy": "never", "sandbox": "danger-full-access"}
	if a.dynamicTools != "" {
		raw, err := os.ReadFile(filepath.Join(scenarioDir, a.dynamicTools))
		if err != nil {
			return err
		}
		params["dynamicTools"] = json.RawMessage(raw)
	}
	if id, err = c.request("thread/start", params); err != nil {
		return err
	}
	resp, err := c.pump(ctx, time.Minute, hasID(id))
	if err != nil {
		return err
	}
	if e, ok := resp["error"]; ok {
		return fmt.Errorf("thread/start: %s", e)
	}
	var started struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	if err := json.Unmarshal(resp["result"], &started); err != nil || started.Thread.ID == "" {
		return fmt.Errorf("thread/start result %s: %v", resp["result"], err)
	}
	for _, p := range a.prompts {
		id, err := c.request("turn/start", map[string]any{"threadId": started.Thread.ID,
			"input": []any{map[string]any{"type": "text", "text": p}}})
		if err != nil {
			return err
		}
		if _, err := c.pump(ctx, time.Minute, hasID(id)); err != nil {
			return err
		}
		if _, err := c.pump(ctx, 3*time.Minute, func(m map[string]json.RawMessage) bool {
			return string(m["method"]) == `"turn/completed"`
		}); err != nil {
			return err
		}
	}
	return nil
}
