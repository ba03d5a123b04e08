package router

import (
	"hash/maphash"
	"net"
	"slices"
	"strings"
	"sync"

	"hpatch-router/plugins"
)

// memoHead is how many leading bytes of an item index the memo; items
// shorter than that are cheap to analyse and are not remembered.
const memoHead = 128

// RequestRewriter is RewriteRequest with a bounded memo of analysed
// additional_tools items (and of checked top-level tools lists). Codex repeats the same additional_tools item,
// byte for byte, in every request of a thread (FACTS §2.3), and most of
// the rewrite's cost is scanning that ~25 KB item and trimming and
// re-encoding the exec description in it. The memo maps the item's bytes
// to its analysis and rewrite, so a repeated item costs a comparison of
// its bytes instead: the request is scanned once, skipping the item, and
// spliced once. Output bytes are identical to RewriteRequest's. The memo
// evicts the least recently used item. Safe for concurrent use.
type RequestRewriter struct {
	mu       sync.Mutex
	entries  map[string]*itemMemo   // key: the item's raw bytes
	heads    map[string][]*itemMemo // key: the item's first memoHead bytes
	order    []*itemMemo            // every entry, in insertion order
	clock    uint64                 // use counter, for LRU eviction
	size     int                    // total key bytes held
	maxItems int
	maxBytes int

	seed  maphash.Seed             // for prefix digests (request_resume.go)
	tools plugins.Tools            // the injected tools, compacted once
	scans *threadPoints[scanPoint] // per-thread scan points (request_resume.go)
}

// itemMemo is one remembered value: an additional_tools item (an set) or
// a top-level tools list that passed its check (top set).
type itemMemo struct {
	raw  string // the value's bytes
	an   *itemAnalysis
	top  *topTools
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
		heads:    make(map[string][]*itemMemo, maxItems),
		maxItems: maxItems,
		maxBytes: maxItems << 16,
		seed:     maphash.MakeSeed(),
		scans:    newThreadPoints[scanPoint](maxResumeThreads),
		tools:    plugins.CompactTools(),
	}
}

// injectedTools returns the compact injected tools, computed once per
// rewriter (on every call without one).
func (r *RequestRewriter) injectedTools() plugins.Tools {
	if r == nil {
		return plugins.CompactTools()
	}
	return r.tools
}

// maxResumeThreads bounds the threads whose last scan is remembered
// (request_resume.go): one small record each, the least recently used
// dropped first.
const maxResumeThreads = 256

// Rewrite is RewriteRequest using the memo.
func (r *RequestRewriter) Rewrite(body []byte) ([]byte, RequestInfo, error) {
	return rewriteRequest(body, r, "")
}

// RewriteThread is Rewrite for a request of thread, whose previous
// request's validated prefix is not validated again when this body
// repeats it byte for byte (request_resume.go). The output is the same as
// Rewrite's.
func (r *RequestRewriter) RewriteThread(thread string, body []byte) ([]byte, RequestInfo, error) {
	return rewriteRequest(body, r, thread)
}

// rewriteThreadPieces is RewriteThread with the output as pieces and the
// replay restore's edits applied in them (rewritePieces), the router's
// request rewrite: a rewritten body is sent without being copied.
func (r *RequestRewriter) rewriteThreadPieces(thread string, body []byte, restored []edit) (net.Buffers, RequestInfo, error) {
	return rewritePieces(body, r, thread, restored)
}

// lookup returns the remembered value that b starts with; nil when there
// is none. The caller must still check what follows the value: the match
// says only that these bytes are that whole, valid value.
func (r *RequestRewriter) lookup(b []byte) *itemMemo {
	if len(b) < memoHead {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.heads[string(b[:memoHead])] {
		if len(e.raw) <= len(b) && string(b[:len(e.raw)]) == e.raw {
			r.clock++
			e.used = r.clock
			return e
		}
	}
	return nil
}

// store remembers what the rewrite learned from the value raw, an item
// analysis or a top-level tools check (raw may alias a request body; the
// memo keeps its own copy).
func (r *RequestRewriter) store(raw string, an *itemAnalysis, top *topTools) {
	if len(raw) < memoHead || len(raw) > r.maxBytes {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.entries[raw]; ok {
		return
	}
	for len(r.order) > 0 && (len(r.order) >= r.maxItems || r.size+len(raw) > r.maxBytes) {
		r.evict()
	}
	r.clock++
	e := &itemMemo{raw: strings.Clone(raw), an: an, top: top, used: r.clock}
	head := e.raw[:memoHead]
	r.entries[e.raw] = e
	r.heads[head] = append(r.heads[head], e)
	r.order = append(r.order, e)
	r.size += len(e.raw)
}

// evict drops the least recently used entry.
func (r *RequestRewriter) evict() {
	k := 0
	for i, e := range r.order {
		if e.used < r.order[k].used {
			k = i
		}
	}
	e := r.order[k]
	r.order = slices.Delete(r.order, k, k+1)
	head := e.raw[:memoHead]
	hs := r.heads[head]
	for i, h := range hs {
		if h == e {
			hs = slices.Delete(hs, i, i+1)
			break
		}
	}
	if len(hs) == 0 {
		delete(r.heads, head)
	} else {
		r.heads[head] = hs
	}
	delete(r.entries, e.raw)
	r.size -= len(e.raw)
}
