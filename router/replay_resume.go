package router

import (
	"hash/maphash"
	"slices"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
)

// The replay restore's walk of a request body, resumable per thread the
// way the request scan is (request_resume.go): a thread with carriers
// sends its whole conversation again with every request, so the restore
// remembers where its walk of the thread's last body stood (just past the
// last input item), a digest of the bytes before that point and the exec
// calls it found there. A body that starts with exactly those bytes is
// walked from that point on; any other body is walked whole. The store is
// asked about every call on every request, so a call restored, refused or
// unknown before is judged afresh.
//
// The walk is the request scanner's: it validates the whole body (RFC
// 8259) while it finds the calls, and an invalid body restores nothing
// (the request rewrite then rejects it as invalid JSON). On a valid body
// it reads what gjson reads: the first top-level `input`, and in each of
// its object items the first `type`, `name`, `call_id` and `input`.

// restorePoint is where a restore walk stood past the last input item of
// a thread's body. It is immutable once stored and aliases no body.
type restorePoint struct {
	end    int        // body[:end] ends with the last input item
	digest uint64     // maphash of body[:end] under the restore's seed
	calls  []execCall // exec calls in body[:end], in input order
}

// execCall is a custom_tool_call named exec in the request input: a
// carrier Codex echoes, or the model's own exec call.
type execCall struct {
	id         string // call_id as gjson's String reads it
	start, end int    // the item's bytes
	input      span   // its input value
	// carrier is carrierDigest of the input as gjson's String reads it,
	// computed once when the call is first walked.
	carrier string
}

// restoreResume is the per-router state of the resumable restore walk.
type restoreResume struct {
	seed   maphash.Seed
	points *threadPoints[restorePoint]
}

func newRestoreResume() *restoreResume {
	return &restoreResume{seed: maphash.MakeSeed(), points: newThreadPoints[restorePoint](maxResumeThreads)}
}

// restoreWalk is what one walk of a body found.
type restoreWalk struct {
	calls    []execCall
	inputEnd int // just past the last item of the first top-level input array; 0: none
}

// walk returns the exec calls of body's first top-level input array,
// resuming from the thread's point when body repeats its prefix; ok is
// false for a body that is not a valid JSON object. mayHold is asked
// before a body without a usable point is walked whole; when it says the
// body holds nothing to restore, walk reports no calls. A walk worth
// resuming from is remembered.
func (rr *restoreResume) walk(thread string, body []byte, mayHold func() bool) (restoreWalk, bool) {
	var w restoreWalk
	var d prefixDigest
	i := -1
	if p := rr.points.get(thread); p != nil && len(body) > p.end && d.sum(rr.seed, body, p.end) == p.digest {
		w.calls, w.inputEnd = slices.Clone(p.calls), p.end
		if i = w.items(body, p.end, true); i >= 0 {
			i = walkMembers(body, i, true, &w)
		}
	} else {
		if !mayHold() {
			return w, true
		}
		if i = jsSpace(body, 0); i >= len(body) || body[i] != '{' {
			return w, false
		}
		i = walkMembers(body, i+1, false, &w)
	}
	if i < 0 || jsSpace(body, i) != len(body) {
		return restoreWalk{}, false
	}
	if w.inputEnd >= minResumeBytes {
		rr.points.put(thread, &restorePoint{end: w.inputEnd, digest: d.sum(rr.seed, body, w.inputEnd), calls: w.calls})
	}
	return w, true
}

// walkMembers walks the top-level object's members from i, which is just
// past the opening brace, or just past a member's value when afterValue is
// set (the input array a resumed walk finished); it returns the index
// after the closing brace, or -1. Only the first input member is walked
// for calls; every value is validated.
func walkMembers(body []byte, i int, afterValue bool, w *restoreWalk) int {
	seen := afterValue
	if !afterValue {
		if i = jsSpace(body, i); i < len(body) && body[i] == '}' {
			return i + 1
		}
	}
	return jsEach(body, i, afterValue, '}', func(i int) int {
		ks := i
		if i = jsKey(body, i); i < 0 || i >= len(body) {
			return -1
		}
		first := !seen && isKey(body[ks:], "input")
		seen = seen || first
		if !first || body[i] != '[' {
			return jsValue(body, i)
		}
		if i = jsSpace(body, i+1); i < len(body) && body[i] == ']' {
			return i + 1
		}
		return w.items(body, i, false)
	})
}

// isKey reports whether the object key whose quoted string starts b, as
// jsKey validated it, is key (an escaped key decoded first).
func isKey(b []byte, key string) bool {
	e := jsString(b, 1)
	raw := unsafe.String(unsafe.SliceData(b), e)
	return raw[1:e-1] == key || strings.IndexByte(raw, '\\') >= 0 && decodeJSONString(raw) == key
}

// items walks the input array's items from i, which is at an item, or
// just past one when after is set; it returns the index after the array,
// or -1. It notes every exec call and where the last item ends.
func (w *restoreWalk) items(body []byte, i int, after bool) int {
	return jsEach(body, i, after, ']', func(s int) int {
		if s >= len(body) {
			return -1
		}
		i := jsValue(body, s)
		if i >= 0 {
			if body[s] == '{' {
				w.note(body, s, i)
			}
			w.inputEnd = i
		}
		return i
	})
}

// note records the validated object body[s:e] when it is an exec call.
func (w *restoreWalk) note(body []byte, s, e int) {
	obj := unsafe.String(&body[s], e-s)
	member := func(key string) (span, string) {
		vs, ve, ok := memberValue(obj, key)
		if !ok {
			return span{}, ""
		}
		return span{s + vs, s + ve}, resultString(obj[vs:ve])
	}
	if _, t := member("type"); t != "custom_tool_call" {
		return
	}
	if _, n := member("name"); n != toolExec {
		return
	}
	_, id := member("call_id")
	in, text := member("input")
	w.calls = append(w.calls, execCall{id: strings.Clone(id), start: s, end: e, input: in, carrier: carrierDigest(text)})
}

// resultString is gjson's Result.String of the validated JSON value raw:
// a string decoded, anything else as gjson renders it.
func resultString(raw string) string {
	if raw[0] == '"' {
		return decodeJSONString(raw)
	}
	return gjson.Parse(raw).String()
}
