//go:build linux

package hsymbol

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
)

// maxMessage bounds one LSP message from the server.
const maxMessage = 64 << 20

// message is a JSON-RPC 2.0 message in either direction.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// client speaks LSP over a server's stdin and stdout. readLoop decodes
// frames into incoming; serve answers the server's own requests as they
// come (a server waiting for its configuration must not wait for our next
// call) and hands each response to the call waiting for its id, so calls
// from several goroutines share the connection.
type client struct {
	w        io.Writer
	wmu      sync.Mutex // one frame at a time: calls, notifications and answers interleave
	incoming chan message
	readErr  chan error
	done     chan struct{} // closed by stop: the reader drops what is left
	name     string        // the server's name, for errors

	mu      sync.Mutex
	nextID  int
	pending map[string]chan message // by request id
	ended   chan struct{}           // closed when serve has seen the stream end
	endErr  error                   // why; set before ended is closed
}

// newClient starts the reader only; startClient also serves.
func newClient(name string, w io.Writer, r io.Reader) *client {
	c := &client{w: w, incoming: make(chan message, 256), readErr: make(chan error, 1), done: make(chan struct{}),
		name: name, pending: map[string]chan message{}, ended: make(chan struct{})}
	go c.readLoop(bufio.NewReaderSize(r, 64<<10))
	return c
}

// startClient is a client ready for calls.
func startClient(name string, w io.Writer, r io.Reader) *client {
	c := newClient(name, w, r)
	go c.serve()
	return c
}

// readLoop decodes Content-Length framed messages until the stream ends or
// stop is called; either way readErr gets the reason and incoming closes.
func (c *client) readLoop(br *bufio.Reader) {
	err := c.readFrames(br)
	c.readErr <- err
	close(c.incoming)
}

var errStopped = errors.New("the session was stopped")

func (c *client) readFrames(br *bufio.Reader) error {
	tp := textproto.NewReader(br)
	for {
		hdr, err := tp.ReadMIMEHeader()
		if err != nil {
			return err
		}
		n, err := strconv.Atoi(strings.TrimSpace(hdr.Get("Content-Length")))
		if err != nil || n < 0 || n > maxMessage {
			return fmt.Errorf("bad Content-Length %q", hdr.Get("Content-Length"))
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			return err
		}
		var m message
		if json.Unmarshal(body, &m) != nil {
			continue
		}
		select {
		case c.incoming <- m:
		case <-c.done:
			return errStopped
		}
	}
}

// serve routes what the server sends: its requests are answered at once,
// responses go to their waiting call, notifications are dropped.
func (c *client) serve() {
	for m := range c.incoming {
		switch {
		case m.Method != "" && m.ID != nil:
			_ = c.answer(m) // a server that stopped reading ends the stream too
		case m.Method == "" && m.ID != nil:
			c.mu.Lock()
			ch := c.pending[string(m.ID)]
			delete(c.pending, string(m.ID))
			c.mu.Unlock()
			if ch != nil {
				ch <- m // buffered: the caller may have given up
			}
		}
	}
	c.endErr = <-c.readErr
	close(c.ended)
}

// stop releases the reader; call it once, when the session is over.
func (c *client) stop() { close(c.done) }

// send writes one framed message.
func (c *client) send(m message) error {
	m.JSONRPC = "2.0"
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	frame := append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.w.Write(frame)
	return err
}

// notify sends a notification.
func (c *client) notify(method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.send(message{Method: method, Params: raw})
}

// responseError is the server's error answer to a call: the session is
// still sound.
type responseError struct {
	server, method, message string
	code                    int
}

func (e *responseError) Error() string {
	return fmt.Sprintf("%s answered %s with error %d: %s", e.server, e.method, e.code, e.message)
}

// call sends a request and waits for its response; result receives the
// response's result.
func (c *client) call(ctx context.Context, method string, params, result any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	reply := make(chan message, 1)
	c.mu.Lock()
	c.nextID++
	id := strconv.Itoa(c.nextID)
	c.pending[id] = reply
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()
	if err := c.send(message{ID: json.RawMessage(id), Method: method, Params: raw}); err != nil {
		return fmt.Errorf("%s stopped reading requests: %w", c.name, err)
	}
	var m message
	select {
	case <-ctx.Done():
		return c.late(ctx, method)
	case m = <-reply:
	case <-c.ended:
		select {
		case m = <-reply: // answered just before the end
		default:
			if ctx.Err() != nil { // the end is the kill that ctx's end caused
				return c.late(ctx, method)
			}
			err := c.endErr
			if errors.Is(err, io.EOF) {
				err = errors.New("it exited")
			}
			return fmt.Errorf("%s ended the session during %s: %w", c.name, method, err)
		}
	}
	if m.Error != nil {
		return &responseError{server: c.name, method: method, code: m.Error.Code, message: m.Error.Message}
	}
	if result == nil || len(m.Result) == 0 {
		return nil
	}
	return json.Unmarshal(m.Result, result)
}

func (c *client) late(ctx context.Context, method string) error {
	return fmt.Errorf("%s did not answer %s in time: %w", c.name, method, context.Cause(ctx))
}

// answer replies to a server request: configuration gets one null per item,
// everything else (progress tokens, capability registration) a null result.
func (c *client) answer(m message) error {
	result := json.RawMessage("null")
	if m.Method == "workspace/configuration" {
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(m.Params, &p)
		nulls := make([]any, len(p.Items))
		result, _ = json.Marshal(nulls)
	}
	return c.send(message{ID: m.ID, Result: result})
}
