package router

import (
	"hash/maphash"
	"slices"
)

// Resuming a thread's scan. Codex sends a thread's whole conversation with
// every request, and each request repeats the previous one's input items
// byte for byte before its new ones (FACTS §2.3). Validating a long
// conversation costs about 0.6 ms per MiB on every request; a digest of the
// part an earlier request already validated costs a tenth of that. So the
// rewriter remembers, per thread, where the scan of the thread's last body
// stood after the last input item and a digest of the bytes before that
// point. A body that starts with exactly those bytes is scanned from there;
// any other body, one with a changed old message too, is scanned whole.

// minResumeBytes is the shortest prefix worth remembering: below it a scan
// costs a few microseconds and the bookkeeping would not pay.
const minResumeBytes = 16 << 10

// maxResumeItems bounds the additional_tools items one scanPoint keeps
// (Codex sends one or a few); a body with more is always scanned whole.
const maxResumeItems = 16

// scanPoint is where a validated body's scan stood just past its last
// input item, and what it had recorded by then. It is immutable once
// stored and aliases no request body.
type scanPoint struct {
	end       int          // the prefix body[:end] ends with the last input item
	digest    uint64       // maphash of body[:end] under the rewriter's seed
	inputLen  int64        // items of the input array before end
	tools     span         // the top-level tools value, when it came before input
	toolsMemo *topTools    // and its check, when the memo held it
	items     []layoutItem // additional_tools items before end, analysed
}

// prefixDigest is a running maphash of a body's first n bytes under the
// rewriter's seed. maphash is keyed by a random per-process seed, so a
// body cannot be made to collide with another on purpose; by chance, two
// different prefixes share a digest with odds of 2^-64. The digest of a
// longer prefix continues from a shorter one (maphash's sum does not
// depend on how the bytes were split between writes), so a body is hashed
// once: up to the old scan point to check it, then on to the new one.
type prefixDigest struct {
	h      maphash.Hash
	n      int
	seeded bool
}

// sum returns the digest of body[:n], continuing from the bytes already
// hashed when n does not go back before them.
func (d *prefixDigest) sum(seed maphash.Seed, body []byte, n int) uint64 {
	if !d.seeded || n < d.n {
		d.h.SetSeed(seed) // also resets
		d.n, d.seeded = 0, true
	}
	d.h.Write(body[d.n:n])
	d.n = n
	return d.h.Sum64()
}

// resumePoint returns the thread's scanPoint when body starts with the
// prefix it describes, else nil. d keeps what was hashed of body for
// rememberScan.
func (r *RequestRewriter) resumePoint(thread string, body []byte, d *prefixDigest) *scanPoint {
	if r == nil || thread == "" {
		return nil
	}
	p := r.scans.get(thread)
	if p == nil || len(body) <= p.end || d.sum(r.seed, body, p.end) != p.digest {
		return nil
	}
	return p
}

// rememberScan records where the scan of the thread's body l describes
// stood after its last input item, when that is worth resuming from. The
// items must be analysed (rewritePieces calls it once they are); d is the
// digest resumePoint began on body.
func (r *RequestRewriter) rememberScan(thread string, body []byte, l *bodyLayout, d *prefixDigest) {
	if r == nil || thread == "" || l.inputKeys != 1 || l.inputEnd < minResumeBytes || len(l.items) > maxResumeItems {
		return
	}
	p := &scanPoint{
		end:      l.inputEnd,
		digest:   d.sum(r.seed, body, l.inputEnd),
		inputLen: l.inputLen,
		items:    slices.Clone(l.items),
	}
	if l.tools.end > 0 && l.tools.end <= l.inputEnd {
		p.tools, p.toolsMemo = l.tools, l.toolsMemo
	}
	r.scans.put(thread, p)
}
