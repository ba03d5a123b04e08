package router

import (
	"net"
	"strings"
	"sync"

	"hpatch-router/plugins"
	"hpatch-router/plugins/registry"
)

// RequestRewriter is RewriteRequest with a bounded memo of analysed
// additional_tools items. Codex repeats the same additional_tools item,
// byte for byte, in every request of a thread (FACTS §2.3), and most of
// the rewrite's own cost is trimming and re-encoding the ~20 KB exec
// description in it. The memo maps the item's bytes to its analysis, so a
// repeated item costs a map lookup instead. Output bytes are identical to
// RewriteRequest's. The memo evicts the least recently used item. Safe for
// concurrent use.
type RequestRewriter struct {
	mu       sync.Mutex
	entries  map[string]*itemMemo // key: the item's raw bytes
	clock    uint64               // use counter, for LRU eviction
	size     int                  // total key bytes held
	maxItems int
	maxBytes int

	tools plugins.Tools // the injected tools, compacted once
}

// itemMemo is one remembered additional_tools item.
type itemMemo struct {
	an   *itemAnalysis
	used uint64 // clock at the last lookup or store
}

// NewRequestRewriter returns a rewriter that remembers up to maxItems
// additional_tools items (and at most 64 KiB of item bytes per item on
// average); 0 or less means 64.
func NewRequestRewriter(maxItems int) *RequestRewriter {
	if maxItems <= 0 {
		maxItems = 64
	}
	return &RequestRewriter{
		entries:  make(map[string]*itemMemo, maxItems),
		maxItems: maxItems,
		maxBytes: maxItems << 16,
		tools:    registry.Builtins(),
	}
}

// Rewrite is RewriteRequest using the memo.
func (r *RequestRewriter) Rewrite(body []byte) ([]byte, RequestInfo, error) {
	return rewriteRequest(body, r)
}

// rewritePieces is Rewrite with the output as pieces and the replay
// restore's edits applied in them (see rewritePieces), the router's
// request rewrite: a rewritten body is sent without being copied.
func (r *RequestRewriter) rewritePieces(req *request, restored []edit) (net.Buffers, RequestInfo, error) {
	return rewritePieces(req, r, restored)
}

// injectedTools returns the compact injected tools, computed once per
// rewriter (on every call without one).
func (r *RequestRewriter) injectedTools() plugins.Tools {
	if r == nil {
		return registry.Builtins()
	}
	return r.tools
}

// lookup returns the analysis remembered for the item raw, or nil.
func (r *RequestRewriter) lookup(raw string) *itemAnalysis {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.entries[raw]
	if e == nil {
		return nil
	}
	r.clock++
	e.used = r.clock
	return e.an
}

// store remembers the analysis of the item raw (raw may alias a request
// body; the memo keeps its own copy).
func (r *RequestRewriter) store(raw string, an *itemAnalysis) {
	if r == nil || len(raw) > r.maxBytes {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.entries[raw]; ok {
		return
	}
	for len(r.entries) > 0 && (len(r.entries) >= r.maxItems || r.size+len(raw) > r.maxBytes) {
		r.evict()
	}
	r.clock++
	r.entries[strings.Clone(raw)] = &itemMemo{an: an, used: r.clock}
	r.size += len(raw)
}

// evict drops the least recently used entry.
func (r *RequestRewriter) evict() {
	var oldest string
	var used uint64
	for k, e := range r.entries {
		if oldest == "" || e.used < used {
			oldest, used = k, e.used
		}
	}
	delete(r.entries, oldest)
	r.size -= len(oldest)
}
