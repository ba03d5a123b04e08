package router

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"unsafe"
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
