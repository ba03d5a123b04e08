package router

import (
	"errors"
	"fmt"
	"hpatch-router/plugins/registry"
	"io"
	"net/http"
	"sync/atomic"
	"unsafe"

	"github.com/tidwall/gjson"
)

// heldBytes bounds the request body bytes the router holds in memory at
// once, across all requests: the bodies it reads whole to rewrite them.
// Streamed bodies (forwarded unchanged) are not held.
type heldBytes struct {
	limit int64
	used  atomic.Int64
}

func (h *heldBytes) take(n int64) bool {
	for {
		u := h.used.Load()
		if u+n > h.limit {
			return false
		}
		if h.used.CompareAndSwap(u, u+n) {
			return true
		}
	}
}

// lease is what one request holds of the budget; release returns it all.
type lease struct {
	h *heldBytes
	n int64
}

func (l *lease) grow(n int64) error {
	if !l.h.take(n) {
		return errMemoryBudget
	}
	l.n += n
	return nil
}

func (l *lease) release() {
	l.h.used.Add(-l.n)
	l.n = 0
}

// errMemoryBudget: taking more would exceed the held-bytes bound.
var errMemoryBudget = errors.New("request memory budget exhausted")

// errBodyTooLarge is reported by readBounded.
var errBodyTooLarge = errors.New("request body too large")

// readChunk is how much an unknown-length body grows by at first.
const readChunk = 64 << 10

// readBounded reads a whole body of at most limit bytes, holding what it
// allocates against l before allocating it (the body is the only copy: the
// parse reads it in place, and the replay restore and the request rewrite
// send their edits as pieces between its bytes). size
// is the Content-Length (-1 when unknown): a known size is held and
// allocated at once, so an over-budget request is refused before a byte is
// read.
func readBounded(r io.Reader, size, limit int64, l *lease) ([]byte, error) {
	if size > limit {
		return nil, errBodyTooLarge
	}
	if size >= 0 {
		if err := l.grow(size); err != nil {
			return nil, err
		}
		buf := make([]byte, size)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	var buf []byte
	for {
		if len(buf) == cap(buf) {
			next := min(max(2*int64(cap(buf)), readChunk), limit+1)
			if next <= int64(cap(buf)) {
				return nil, errBodyTooLarge
			}
			if err := l.grow(next - int64(cap(buf))); err != nil {
				return nil, err
			}
			grown := make([]byte, len(buf), next)
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, errBodyTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// memoryExhausted answers a request refused for the held-bytes bound.
func (rt *Router) memoryExhausted(w http.ResponseWriter) {
	rt.metrics.fault("request_memory")
	w.Header().Set("Retry-After", "1")
	writeRouterError(w, http.StatusServiceUnavailable, "server_error", "request_memory_exhausted",
		fmt.Sprintf("the router already holds close to its limit of %d bytes of request bodies in memory; retry shortly", rt.held.limit))
}

// request is a Responses request body read once for every stage after
// it: the replay restore reads its exec calls, findOwners its
// additional_tools items and top-level tools. gjson reads body in place
// (see parseRequest), so what a stage keeps beyond the request it clones;
// every Index is an offset into body.
type request struct {
	body     []byte
	hasTools bool         // the body has a top-level tools member
	tools    gjson.Result // its value
	// The items of the top-level input array that the stages read, in
	// input order.
	additional []inputItem // type additional_tools
	execCalls  []inputItem // custom_tool_call named exec: carriers Codex echoes, or the model's own exec calls
	// Every custom_tool_call and custom_tool_call_output, for settle.
	toolCalls   []gjson.Result
	toolOutputs []gjson.Result
	// envContext is the text of the last environment_context item Codex
	// wrote (codexEnvContext), or "": where the turn runs.
	envContext string
	// toolSet is the declared tools in service when the request arrived.
	toolSet *registry.Set
}

// inputItem is one object of the request's input array.
type inputItem struct {
	idx int64 // position in input, for error messages
	gjson.Result
	callID string // an exec call's call_id, read once for every stage (aliases body)
}

// parseRequest validates body as a JSON object and reads what the stages
// need in one walk of its members and input items. As with a decoder that
// keeps the last of duplicate keys, a repeated top-level key replaces the
// earlier one (gjson's Get would read the first). An input that is not an
// array has no items. Within an item, type and name are the first of
// their keys, as gjson's Get reads them.
func parseRequest(body []byte) (*request, error) {
	if !gjson.ValidBytes(body) {
		return nil, invalidRequest(CodeInvalidJSON, "request body is not valid JSON")
	}
	// The body is never written after it is read, so gjson can read it as
	// a string without a copy: a 1 MB conversation is not held twice.
	doc := gjson.Parse(unsafe.String(unsafe.SliceData(body), len(body))) // Parse counts leading whitespace in Index
	if !doc.IsObject() {
		return nil, invalidRequest(CodeInvalidJSON, "request body is not a JSON object")
	}
	r := &request{body: body}
	var input gjson.Result
	doc.ForEach(func(k, v gjson.Result) bool {
		switch k.String() {
		case "tools":
			r.tools, r.hasTools = v, true
		case "input":
			input = v
		}
		return true
	})
	if !input.IsArray() {
		return r, nil
	}
	input.ForEach(func(k, it gjson.Result) bool {
		if !it.IsObject() {
			return true
		}
		switch it.Get("type").String() {
		case "additional_tools":
			r.additional = append(r.additional, inputItem{idx: k.Int(), Result: it})
		case "custom_tool_call":
			r.toolCalls = append(r.toolCalls, it)
			if it.Get("name").String() == toolExec {
				r.execCalls = append(r.execCalls, inputItem{k.Int(), it, it.Get("call_id").String()})
			}
		case "custom_tool_call_output":
			r.toolOutputs = append(r.toolOutputs, it)
		case "message":
			if text, ok := codexEnvContext(it); ok {
				r.envContext = text
			}
		}
		return true
	})
	return r, nil
}
