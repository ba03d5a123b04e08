package dashboard

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"hpatch-router/internal/testenv"
)

// cdpBrowser is headless Chromium driven over the DevTools protocol on
// --remote-debugging-pipe: commands are NUL-terminated JSON written to the
// browser's fd 3, answers and events come back on its fd 4. Unlike
// --dump-dom with a virtual time budget, this works while the page holds a
// live event stream open.
type cdpBrowser struct {
	t       *testing.T
	cmd     *exec.Cmd
	w       io.WriteCloser
	mu      sync.Mutex
	nextID  int
	waiting map[int]chan cdpReply
	stderr  testenv.Buffer
	done    chan struct{}
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func startCDP(ctx context.Context, t *testing.T, bin string) *cdpBrowser {
	t.Helper()
	toBrowserR, toBrowserW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromBrowserR, fromBrowserW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	b := &cdpBrowser{t: t, w: toBrowserW, waiting: map[int]chan cdpReply{}, done: make(chan struct{})}
	b.cmd = exec.CommandContext(ctx, bin,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--hide-scrollbars", "--window-size=1280,1000",
		"--user-data-dir="+t.TempDir(), "--remote-debugging-pipe", "about:blank")
	b.cmd.ExtraFiles = []*os.File{toBrowserR, fromBrowserW} // fd 3, fd 4
	b.cmd.Stderr = &b.stderr
	b.cmd.WaitDelay = 5 * time.Second
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toBrowserR.Close()
	fromBrowserW.Close()
	go b.read(fromBrowserR)
	t.Cleanup(b.close)
	return b
}

func (b *cdpBrowser) read(r io.ReadCloser) {
	defer close(b.done)
	defer r.Close()
	br := bufio.NewReader(r)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m struct {
			ID int `json:"id"`
			cdpReply
		}
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil || m.ID == 0 {
			continue // events are not needed
		}
		b.mu.Lock()
		ch := b.waiting[m.ID]
		delete(b.waiting, m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m.cdpReply
		}
	}
}

// call sends one command (to a page session when session is set) and
// decodes its result into out (may be nil).
func (b *cdpBrowser) call(ctx context.Context, session, method string, params, out any) error {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan cdpReply, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.w.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return fmt.Errorf("%s: %s", method, r.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	case <-b.done:
		return fmt.Errorf("%s: browser exited: %s", method, tail(b.stderr.String(), 1000))
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// open creates a page at url and returns its flattened session id.
func (b *cdpBrowser) open(ctx context.Context, url string) (string, error) {
	var target struct{ TargetID string }
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": url}, &target); err != nil {
		return "", err
	}
	var att struct{ SessionID string }
	err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att)
	return att.SessionID, err
}

// eval evaluates a JavaScript expression in the page and returns its JSON value.
func (b *cdpBrowser) eval(ctx context.Context, session, expr string) (json.RawMessage, error) {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := b.call(ctx, session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r); err != nil {
		return nil, err
	}
	if r.ExceptionDetails != nil {
		return nil, fmt.Errorf("evaluate %q: %s", expr, r.ExceptionDetails.Text)
	}
	return r.Result.Value, nil
}

// waitTrue polls a boolean expression until it is true; exceptions (the
// page may still be loading) count as false.
func (b *cdpBrowser) waitTrue(ctx context.Context, session, what, expr string) {
	b.t.Helper()
	var last error
	for {
		v, err := b.eval(ctx, session, expr)
		if err == nil && string(v) == "true" {
			return
		}
		last = err
		select {
		case <-ctx.Done():
			b.t.Fatalf("timed out waiting for %s (last error: %v)", what, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// screenshot captures the page's viewport as PNG.
func (b *cdpBrowser) screenshot(ctx context.Context, session string) []byte {
	b.t.Helper()
	var r struct{ Data string }
	if err := b.call(ctx, session, "Page.captureScreenshot", map[string]any{"format": "png"}, &r); err != nil {
		b.t.Fatal(err)
	}
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		b.t.Fatal(err)
	}
	return png
}

func (b *cdpBrowser) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = b.call(ctx, "", "Browser.close", map[string]any{}, nil)
	b.w.Close()
	_ = b.cmd.Wait()
}
