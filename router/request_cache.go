package router

import (
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// RequestRewriter is RewriteRequest with a bounded memo of rewritten exec
// definitions. Codex repeats the same additional_tools item, byte for byte,
// in every request of a thread (FACTS §2.3), and most of the rewrite's cost
// is trimming and re-encoding that ~20 KB description; the memo turns the
// repeat into a map lookup. Output bytes are identical to RewriteRequest's.
// Safe for concurrent use.
type RequestRewriter struct {
	mu       sync.Mutex
	entries  map[string]*ownerRewrite // key: the exec object's raw bytes
	order    []string                 // insertion order, for eviction
	size     int                      // total key bytes held
	maxItems int
	maxBytes int
}

// NewRequestRewriter returns a rewriter that remembers up to maxItems exec
// definitions (and at most 64 KiB of key bytes per item on average); 0 or
// less means 64.
func NewRequestRewriter(maxItems int) *RequestRewriter {
	if maxItems <= 0 {
		maxItems = 64
	}
	return &RequestRewriter{
		entries:  make(map[string]*ownerRewrite, maxItems),
		maxItems: maxItems,
		maxBytes: maxItems << 16,
	}
}

// Rewrite is RewriteRequest using the memo.
func (r *RequestRewriter) Rewrite(body []byte) ([]byte, RequestInfo, error) {
	return rewriteRequest(body, r)
}

// ownerRewrite returns the memoized rewrite of tool, computing and storing
// it on a miss. The computation runs outside the lock; two concurrent
// misses compute the same value and the first stored wins.
func (r *RequestRewriter) ownerRewrite(tool gjson.Result) (*ownerRewrite, error) {
	r.mu.Lock()
	rw, ok := r.entries[tool.Raw]
	r.mu.Unlock()
	if ok {
		return rw, nil
	}
	rw, err := newOwnerRewrite(tool)
	if err != nil {
		return nil, err
	}
	if len(tool.Raw) > r.maxBytes {
		return rw, nil
	}
	key := strings.Clone(tool.Raw)
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev, ok := r.entries[key]; ok {
		return prev, nil
	}
	for len(r.order) > 0 && (len(r.order) >= r.maxItems || r.size+len(key) > r.maxBytes) {
		old := r.order[0]
		r.order = r.order[1:]
		r.size -= len(old)
		delete(r.entries, old)
	}
	r.entries[key] = rw
	r.order = append(r.order, key)
	r.size += len(key)
	return rw, nil
}
