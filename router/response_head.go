package router

import (
	"strconv"
	"unsafe"

	"github.com/tidwall/gjson"
)

// eventHead is what the rewrite reads of every event: its type, the
// item_id a tool call input event names, and where its sequence_number is.
// Most events (text deltas) need nothing more, so reading these three in
// one pass is all the rewrite does to an event it passes.
type eventHead struct {
	typ    string // aliases the event: compared, never kept
	itemID string // aliases the event: compared, never kept
	// seqStart and seqEnd span the first sequence_number when it is a
	// number; seqEnd is 0 when there is none.
	seqStart, seqEnd int
}

// readEventHead reads data's head with the request scanner in one pass
// over its top-level members, up to the last of the three: the first type
// and item_id as gjson's String reads them (a string unescaped, null as
// ""), the first sequence_number as sequenceNumber does. It reports false
// when the members it reads are not valid JSON or a type or item_id is
// neither a string nor null; parseEventHead reads those.
func readEventHead(data []byte) (h eventHead, ok bool) {
	var seen [3]bool // type, item_id, sequence_number
	ok = true
	end := objectMembers(data, func(key string, _, vs, ve, _ int) bool {
		switch {
		case key == "type" && !seen[0]:
			seen[0] = true
			h.typ, ok = headString(data[vs:ve])
		case key == "item_id" && !seen[1]:
			seen[1] = true
			h.itemID, ok = headString(data[vs:ve])
		case key == "sequence_number" && !seen[2]:
			seen[2] = true
			if data[vs] == '-' || isDigit(data[vs]) {
				h.seqStart, h.seqEnd = vs, ve
			}
		}
		// Once all three are read, the rest of the event is not looked at.
		return ok && !(seen[0] && seen[1] && seen[2])
	})
	return h, ok && (end >= 0 || seen[0] && seen[1] && seen[2])
}

// objectMembers calls member with each top-level member of the object
// that obj starts with, in order: its key decoded (aliasing obj when it
// has no escapes), where its key starts, its value's span and where the
// comma or brace after the value is. It returns the index of the closing
// brace, or -1 when the members are not valid JSON or member returned
// false.
func objectMembers(obj []byte, member func(key string, ks, vs, ve, sep int) bool) int {
	if len(obj) == 0 || obj[0] != '{' {
		return -1
	}
	i := jsSpace(obj, 1)
	if i < len(obj) && obj[i] == '}' {
		return i
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return -1
		}
		ks := i
		if i = jsString(obj, i+1); i < 0 {
			return -1
		}
		key := decodeJSONString(unsafe.String(&obj[ks], i-ks))
		if i = jsSpace(obj, i); i >= len(obj) || obj[i] != ':' {
			return -1
		}
		vs := jsSpace(obj, i+1)
		ve := jsValue(obj, vs)
		if ve < 0 {
			return -1
		}
		if i = jsSpace(obj, ve); i >= len(obj) || obj[i] != ',' && obj[i] != '}' {
			return -1
		}
		if !member(key, ks, vs, ve, i) {
			return -1
		}
		if obj[i] == '}' {
			return i
		}
		i = jsSpace(obj, i+1)
	}
}

// headString reads a scanned value the way gjson's String reads a string
// or null; ok is false for any other value.
func headString(raw []byte) (string, bool) {
	switch raw[0] {
	case '"':
		return decodeJSONString(unsafe.String(&raw[0], len(raw))), true
	case 'n':
		return "", true
	}
	return "", false
}

// parseEventHead reads the head of an event readEventHead cannot: type and
// item_id with gjson, which reads past what is not valid JSON.
func parseEventHead(data []byte) eventHead {
	h := eventHead{typ: peek(data, "type").String(), itemID: peek(data, "item_id").String()}
	h.seqStart, h.seqEnd, _, _ = sequenceNumber(data)
	return h
}

// sequenceNumber returns the span and value of the event's top-level
// sequence_number when it is a number, read as gjson reads it (the first
// such member; a fraction or exponent truncated by gjson's Int). An event
// whose members before it are not valid JSON has none.
func sequenceNumber(data []byte) (start, end int, n int64, ok bool) {
	s, e, ok := memberValue(unsafe.String(unsafe.SliceData(data), len(data)), "sequence_number")
	if !ok || data[s] != '-' && !isDigit(data[s]) {
		return 0, 0, 0, false
	}
	return s, e, numberAt(data, s, e), true
}

// numberAt reads the JSON number data[s:e] as gjson's Int does.
func numberAt(data []byte, s, e int) int64 {
	raw := unsafe.String(&data[s], e-s)
	if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
		return n
	}
	return gjson.Parse(raw).Int()
}
