package router

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
)

// A validating JSON scanner for request bodies. The rewrite needs two
// things from a body: whether it is valid JSON, and where a few values sit
// (the top-level `tools` and the items of `input`). One pass of this
// scanner gives both, so the body is walked once instead of being
// validated by one library pass and then searched by others.
//
// The grammar is RFC 8259's: whitespace is space, tab, CR and LF; strings
// reject raw control characters and accept only the standard escapes;
// numbers follow the JSON number production. Like gjson.Valid, string
// bytes are not checked for UTF-8 validity.

// SWAR masks for scanning string bytes eight at a time.
const (
	swarOnes  = 0x0101010101010101
	swarHighs = 0x8080808080808080
)

// jsSpace returns the index of the first non-whitespace byte at or after i.
func jsSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\n', '\r', '\t':
			i++
		default:
			return i
		}
	}
	return i
}

// stringStop reports, as a mask with the high bit set in some byte lanes,
// whether the eight bytes in x hold a byte a string scan must stop at: a
// quote, a backslash or a control character. When the mask is not zero,
// its lowest flagged lane is a real stop byte (the borrows of these tests
// only spread towards higher lanes), so the scan can jump straight to it.
func stringStop(x uint64) uint64 {
	q := x ^ (swarOnes * '"')
	s := x ^ (swarOnes * '\\')
	return ((q-swarOnes)&^q | (s-swarOnes)&^s | (x-swarOnes*0x20)&^x) & swarHighs
}

// jsString validates the string whose opening quote is at b[i-1] and
// returns the index just past its closing quote, or -1.
func jsString(b []byte, i int) int {
	for {
		for i+8 <= len(b) {
			if m := stringStop(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(b) {
			return -1
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			if i+1 >= len(b) {
				return -1
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return -1
				}
				i += 6
			default:
				return -1
			}
		case c < 0x20:
			return -1
		default:
			i++
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// jsDigits returns the index after the run of digits at i, or -1 if there
// is none.
func jsDigits(b []byte, i int) int {
	start := i
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

// jsNumber validates the number starting at b[i] and returns the index
// after it, or -1.
func jsNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return -1
	case b[i] == '0':
		i++
	default:
		if i = jsDigits(b, i); i < 0 {
			return -1
		}
	}
	if i < len(b) && b[i] == '.' {
		if i = jsDigits(b, i+1); i < 0 {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i = jsDigits(b, i); i < 0 {
			return -1
		}
	}
	return i
}

// jsLiteral validates lit at b[i] and returns the index after it, or -1.
func jsLiteral(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// jsKey validates an object key at i (after whitespace) and the colon
// after it, and returns the index of the member's value, or -1.
func jsKey(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = jsString(b, i+1); i < 0 {
		return -1
	}
	i = jsSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return jsSpace(b, i+1)
}

// jsValue validates the JSON value starting at b[i] (no leading
// whitespace) and returns the index just past it, or -1. Nesting is
// tracked on an explicit stack, so depth costs heap, not goroutine stack.
func jsValue(b []byte, i int) int {
	var small [64]byte
	stack := small[:0] // closing bracket of each open container
	for {
		if i >= len(b) {
			return -1
		}
		switch c := b[i]; {
		case c == '"':
			i = jsString(b, i+1)
		case c == '{':
			if i = jsSpace(b, i+1); i < len(b) && b[i] == '}' {
				i++
				break
			}
			stack = append(stack, '}')
			if i = jsKey(b, i); i < 0 {
				return -1
			}
			continue
		case c == '[':
			if i = jsSpace(b, i+1); i < len(b) && b[i] == ']' {
				i++
				break
			}
			stack = append(stack, ']')
			continue
		case c == '-' || isDigit(c):
			i = jsNumber(b, i)
		case c == 't':
			i = jsLiteral(b, i, "true")
		case c == 'f':
			i = jsLiteral(b, i, "false")
		case c == 'n':
			i = jsLiteral(b, i, "null")
		default:
			return -1
		}
		if i < 0 {
			return -1
		}
		// A value is complete: close containers until one continues.
		for {
			if len(stack) == 0 {
				return i
			}
			if i = jsSpace(b, i); i >= len(b) {
				return -1
			}
			top := stack[len(stack)-1]
			if b[i] == ',' {
				i = jsSpace(b, i+1)
				if top == '}' {
					if i = jsKey(b, i); i < 0 {
						return -1
					}
				}
				break
			}
			if b[i] != top {
				return -1
			}
			stack = stack[:len(stack)-1]
			i++
		}
	}
}

// jsNext steps over what follows a value inside an object or array that
// the byte end closes: at a comma it returns the index of the next member
// or item, at end the index after it and done; -1 for anything else.
func jsNext(b []byte, i int, end byte) (next int, done bool) {
	if i = jsSpace(b, i); i >= len(b) {
		return -1, false
	}
	switch b[i] {
	case end:
		return i + 1, true
	case ',':
		return jsSpace(b, i+1), false
	}
	return -1, false
}

// jsEach walks the members or items of an object or array that the byte
// end closes, from i at one, or just past one when after is set: elem is
// called at each and returns the index after it, or -1. jsEach returns the
// index after end, or -1.
func jsEach(b []byte, i int, after bool, end byte, elem func(i int) int) int {
	for {
		if after {
			var done bool
			if i, done = jsNext(b, i, end); i < 0 || done {
				return i
			}
		}
		after = true
		if i = elem(i); i < 0 {
			return -1
		}
	}
}

// validJSON reports whether b is one JSON value with optional whitespace
// around it.
func validJSON(b []byte) bool {
	i := jsSpace(b, 0)
	if i >= len(b) {
		return false
	}
	if i = jsValue(b, i); i < 0 {
		return false
	}
	return jsSpace(b, i) == len(b)
}

// span is a value's byte range in the body; end 0 means absent.
type span struct{ start, end int }

// layoutItem is one additional_tools item of the request's input array.
type layoutItem struct {
	idx        int64 // position in input, for error messages
	start, end int   // the item object's bytes
	an         *itemAnalysis
}

// bodyLayout is what scanBody records about a request body.
type bodyLayout struct {
	tools     span         // the top-level tools value
	toolsMemo *topTools    // its remembered check, when the memo had it
	items     []layoutItem // additional_tools items, in input order
	small     [4]layoutItem

	// Where a later body of the same thread may resume the scan (see
	// scanPoint): just past the last item of the only top-level input
	// array, which holds inputLen items; inputKeys counts input keys.
	inputEnd  int
	inputLen  int64
	inputKeys int
}

// scanResult classifies a body.
type scanResult int

const (
	scanOK        scanResult = iota
	scanInvalid              // not valid JSON
	scanNotObject            // valid JSON, but not an object
)

// scanBody validates body and fills l with the top-level `tools` value and
// the additional_tools items of the top-level `input` array. As with a
// decoder that keeps the last of duplicate keys, a repeated top-level key
// replaces the earlier one. An input that is not an array has no items.
// With a memo, an additional_tools item or a top-level tools value whose
// bytes the memo holds is matched and skipped without being scanned again: those exact bytes were a
// complete, valid JSON value when they were stored, so they are one here.
//
// With from, body[:from.end] is known to be byte for byte the prefix an
// earlier scan validated (the caller checked its digest), so the scan
// starts where that one stood: after the last item it saw in the input
// array, with what it had recorded before that point.
func scanBody(body []byte, memo *RequestRewriter, l *bodyLayout, from *scanPoint) scanResult {
	var i int
	if from != nil {
		l.tools, l.toolsMemo = from.tools, from.toolsMemo
		l.items = append(l.items[:0], from.items...)
		l.inputKeys = 1
		if i = scanInputItems(body, from.end, from.inputLen, memo, l); i >= 0 {
			i = scanMembers(body, i, true, memo, l)
		}
	} else {
		i = jsSpace(body, 0)
		if i >= len(body) || body[i] != '{' {
			if validJSON(body) {
				return scanNotObject
			}
			return scanInvalid
		}
		if i = jsSpace(body, i+1); i < len(body) && body[i] == '}' {
			i++
		} else {
			i = scanMembers(body, i, false, memo, l)
		}
	}
	if i < 0 || jsSpace(body, i) != len(body) {
		return scanInvalid
	}
	return scanOK
}

// scanMembers scans the top-level object's members from i, which is at a
// member's key, or just past a member's value when afterValue is set, and
// returns the index after the closing brace, or -1.
func scanMembers(body []byte, i int, afterValue bool, memo *RequestRewriter, l *bodyLayout) int {
	return jsEach(body, i, afterValue, '}', func(i int) int {
		if i >= len(body) || body[i] != '"' {
			return -1
		}
		ks := i + 1
		if i = jsString(body, ks); i < 0 {
			return -1
		}
		key := topKey(body[ks : i-1])
		if i = jsSpace(body, i); i >= len(body) || body[i] != ':' {
			return -1
		}
		if i = jsSpace(body, i+1); i >= len(body) {
			return -1
		}
		vs := i
		switch key {
		case "input":
			l.items = l.items[:0]
			l.inputKeys++
			l.inputEnd = 0
			if body[i] == '[' {
				i = scanInput(body, i, memo, l)
			} else {
				i = jsValue(body, i)
			}
		case "tools":
			l.toolsMemo = nil
			if memo != nil {
				if e := memo.lookup(body[i:]); e != nil && e.top != nil {
					i += len(e.raw)
					l.toolsMemo = e.top
					break
				}
			}
			i = jsValue(body, i)
		default:
			i = jsValue(body, i)
		}
		if i >= 0 && key == "tools" {
			l.tools = span{vs, i}
		}
		return i
	})
}

// topKey returns the top-level key whose raw string content is raw when it
// is one the rewrite reads ("tools" or "input"), else "". A key written
// with escapes is decoded first, so it names what a decoder would see.
func topKey(raw []byte) string {
	if bytes.IndexByte(raw, '\\') >= 0 {
		raw = []byte(gjson.Parse(`"` + string(raw) + `"`).Str)
	}
	switch string(raw) {
	case "tools":
		return "tools"
	case "input":
		return "input"
	}
	return ""
}

// scanInput validates the input array at body[i] ('[') and records its
// additional_tools items; it returns the index after the array, or -1.
func scanInput(body []byte, i int, memo *RequestRewriter, l *bodyLayout) int {
	if i = jsSpace(body, i+1); i < len(body) && body[i] == ']' {
		return i + 1
	}
	return scanInputItems(body, i, 0, memo, l)
}

// scanInputItems scans the input array from its item idx, which starts at
// i, or, when idx > 0, from just past item idx-1; it returns the index
// after the array, or -1. It notes where the last item ends.
func scanInputItems(body []byte, i int, idx int64, memo *RequestRewriter, l *bodyLayout) int {
	return jsEach(body, i, idx > 0, ']', func(i int) int {
		if i = scanInputItem(body, i, idx, memo, l); i >= 0 {
			idx++
			l.inputEnd, l.inputLen = i, idx
		}
		return i
	})
}

// scanInputItem validates input item idx at body[i], records it when it
// is an additional_tools item, and returns the index after it, or -1.
func scanInputItem(body []byte, i int, idx int64, memo *RequestRewriter, l *bodyLayout) int {
	if i >= len(body) {
		return -1
	}
	start := i
	if body[i] != '{' {
		return jsValue(body, i)
	}
	typ, known := peekType(body, i)
	switch {
	case known && typ != "additional_tools":
		return jsValue(body, i)
	case known && memo != nil:
		if e := memo.lookup(body[i:]); e != nil && e.an != nil {
			i += len(e.raw)
			l.items = append(l.items, layoutItem{idx: idx, start: start, end: i, an: e.an})
			return i
		}
	}
	if i = jsValue(body, i); i >= 0 && (known || isAdditionalTools(body[start:i])) {
		l.items = append(l.items, layoutItem{idx: idx, start: start, end: i})
	}
	return i
}

// peekType reads the `type` of the object at body[i] when it is written
// the way Codex writes it: as the first key, a plain string without
// escapes. known is false for any other form; the caller then asks gjson
// once the object is validated. Nothing here is validated, only bounded.
func peekType(body []byte, i int) (typ string, known bool) {
	i = jsSpace(body, i+1)
	if len(body)-i < len(`"type"`) || string(body[i:i+len(`"type"`)]) != `"type"` {
		return "", false
	}
	if i = jsSpace(body, i+len(`"type"`)); i >= len(body) || body[i] != ':' {
		return "", false
	}
	if i = jsSpace(body, i+1); i >= len(body) || body[i] != '"' {
		return "", false
	}
	i++
	end := bytes.IndexByte(body[i:min(len(body), i+64)], '"')
	if end < 0 {
		return "", false
	}
	v := body[i : i+end]
	for _, c := range v {
		if c == '\\' || c < 0x20 {
			return "", false
		}
	}
	return unsafe.String(unsafe.SliceData(v), len(v)), true
}

// isAdditionalTools reports whether the validated object raw has type
// additional_tools, as gjson reads it (the first `type` key).
func isAdditionalTools(raw []byte) bool {
	return gjson.Get(unsafe.String(unsafe.SliceData(raw), len(raw)), "type").String() == "additional_tools"
}

// memberValue returns the span of the value of the first member named key
// in the object obj, which the scanner has validated, as gjson's Get finds
// it for a plain key (an escaped member name is decoded first); ok is
// false when there is none. It skips the other members' values with the
// scanner, eight string bytes at a time.
func memberValue(obj string, key string) (start, end int, ok bool) {
	b := unsafe.Slice(unsafe.StringData(obj), len(obj))
	if len(b) == 0 || b[0] != '{' {
		return 0, 0, false
	}
	i := jsSpace(b, 1)
	for i < len(b) && b[i] == '"' {
		ks := i
		if i = jsString(b, i+1); i < 0 {
			return 0, 0, false
		}
		name := obj[ks:i]
		if i = jsSpace(b, i); i >= len(b) || b[i] != ':' {
			return 0, 0, false
		}
		vs := jsSpace(b, i+1)
		if vs >= len(b) {
			return 0, 0, false
		}
		if i = jsValue(b, vs); i < 0 {
			return 0, 0, false
		}
		if name[1:len(name)-1] == key || strings.IndexByte(name, '\\') >= 0 && decodeJSONString(name) == key {
			return vs, i, true
		}
		if i = jsSpace(b, i); i >= len(b) || b[i] != ',' {
			return 0, 0, false
		}
		i = jsSpace(b, i+1)
	}
	return 0, 0, false
}
