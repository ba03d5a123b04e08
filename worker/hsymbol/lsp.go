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

// client speaks LSP over a server's stdin and stdout. One goroutine reads
// messages into incoming; calls and answers to server requests happen on
// the caller's goroutine.
type client struct {
	w        io.Writer
	incoming chan message
	readErr  chan error
	done     chan struct{} // closed by stop: the reader drops what is left
	nextID   int
	name     string // the server's name, for errors
}

func newClient(name string, w io.Writer, r io.Reader) *client {
	c := &client{w: w, incoming: make(chan message, 256), readErr: make(chan error, 1), done: make(chan struct{}), name: name}
	go c.readLoop(bufio.NewReaderSize(r, 64<<10))
	return c
}

// readLoop decodes Content-Length framed messages until the stream ends.
func (c *client) readLoop(br *bufio.Reader) {
	tp := textproto.NewReader(br)
	for {
		hdr, err := tp.ReadMIMEHeader()
		if err != nil {
			c.readErr <- err
			close(c.incoming)
			return
		}
		n, err := strconv.Atoi(strings.TrimSpace(hdr.Get("Content-Length")))
		if err != nil || n < 0 || n > maxMessage {
			c.readErr <- fmt.Errorf("bad Content-Length %q", hdr.Get("Content-Length"))
			close(c.incoming)
			return
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			c.readErr <- err
			close(c.incoming)
			return
		}
		var m message
		if json.Unmarshal(body, &m) != nil {
			continue
		}
		select {
		case c.incoming <- m:
		case <-c.done:
			return
		}
	}
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

// call sends a request and waits for its response, answering the server's
// own requests meanwhile. result receives the response's result.
func (c *client) call(ctx context.Context, method string, params, result any) error {
	c.nextID++
	id := json.RawMessage(strconv.Itoa(c.nextID))
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if err := c.send(message{ID: id, Method: method, Params: raw}); err != nil {
		return fmt.Errorf("%s stopped reading requests: %v", c.name, err)
	}
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not answer %s in time: %v", c.name, method, context.Cause(ctx))
		case m, ok := <-c.incoming:
			if !ok {
				err := <-c.readErr
				if errors.Is(err, io.EOF) {
					err = errors.New("it exited")
				}
				return fmt.Errorf("%s ended the session during %s: %v", c.name, method, err)
			}
			if m.Method != "" && m.ID != nil {
				if err := c.answer(m); err != nil {
					return err
				}
				continue
			}
			if m.Method != "" || string(m.ID) != string(id) {
				continue // a notification or an unrelated response
			}
			if m.Error != nil {
				return fmt.Errorf("%s answered %s with error %d: %s", c.name, method, m.Error.Code, m.Error.Message)
			}
			if result == nil || len(m.Result) == 0 {
				return nil
			}
			return json.Unmarshal(m.Result, result)
		}
	}
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
