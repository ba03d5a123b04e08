package request

import (
	"strings"
	"sync"

	"hpatch-router/plugins"
	"hpatch-router/plugins/registry"
)

// Rewriter rewrites requests (Rewrite) with a bounded memo of analysed
// additional_tools items. Codex repeats the same additional_tools item,
// byte for byte, in every request of a thread (FACTS §2.3), and most of
// the rewrite's own cost is trimming and re-encoding the ~20 KB exec
// description in it. The memo maps the item's bytes to its analysis, so a
// repeated item costs a map lookup instead; the output bytes are the same
// as without it (a nil *Rewriter analyses every item). The memo evicts the
// least recently used item. Safe for concurrent use.
type Rewriter struct {
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

// NewRewriter returns a rewriter that remembers up to maxItems
// additional_tools items (and at most 64 KiB of item bytes per item on
// average); 0 or less means 64.
func NewRewriter(maxItems int) *Rewriter {
	if maxItems <= 0 {
		maxItems = 64
	}
	return &Rewriter{
		entries:  make(map[string]*itemMemo, maxItems),
		maxItems: maxItems,
		maxBytes: maxItems << 16,
		tools:    registry.Builtins(),
	}
}

// injectedTools returns the compact injected tools, computed once per
// rewriter (on every call without one).
func (r *Rewriter) injectedTools() plugins.Tools {
	if r == nil {
		return registry.Builtins()
	}
	return r.tools
}

// analysis returns the analysis of the additional_tools item raw at input
// index idx: the one remembered for its bytes, or a new one, remembered.
func (r *Rewriter) analysis(idx int64, raw string) (*itemAnalysis, error) {
	if an := r.lookup(raw); an != nil {
		return an, nil
	}
	an, err := analyzeItem(idx, raw, r.injectedTools())
	if err != nil {
		return nil, err
	}
	r.store(raw, an)
	return an, nil
}

// lookup returns the analysis remembered for the item raw, or nil.
func (r *Rewriter) lookup(raw string) *itemAnalysis {
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
func (r *Rewriter) store(raw string, an *itemAnalysis) {
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
func (r *Rewriter) evict() {
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
