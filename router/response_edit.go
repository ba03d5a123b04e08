package router

import (
	"encoding/json"
	"slices"
)

// memberEdit is one change to a top-level member of a JSON object, made
// where sjson would make it: a set replaces the value of the first member
// of that name in place or, when there is none, appends the member before
// the closing brace (unless ifPresent); a delete removes the member and
// the comma that joined it.
type memberEdit struct {
	key       string
	value     []byte // raw JSON; unused by a delete
	del       bool
	ifPresent bool
}

// objectPatch replaces obj[start:end] with the bytes with.
type objectPatch struct {
	start, end int
	with       []byte
}

// appendEdited appends obj with edits applied to dst, in one pass: the
// bytes no edit touches are copied as they are, so the result is what the
// same sjson calls in turn would give a compact object. ok is false when
// obj is not an object whose top-level members are valid JSON.
func appendEdited(dst, obj []byte, edits []memberEdit) ([]byte, bool) {
	var (
		small     [4]objectPatch
		patches   = small[:0]
		found     uint64 // bit j: edits[j] matched a member
		members   int
		prevComma = -1 // the comma before the member being read
	)
	end := objectMembers(obj, func(key string, _, vs, ve, sep int) bool {
		members++
		for j, e := range edits {
			if e.key != key || found&(1<<j) != 0 {
				continue
			}
			found |= 1 << j
			switch {
			case !e.del:
				patches = append(patches, objectPatch{vs, ve, e.value})
			case prevComma >= 0: // from the comma before it
				patches = append(patches, objectPatch{prevComma, ve, nil})
				members--
			case obj[sep] == ',': // the first member: from the brace, through the comma after it
				patches = append(patches, objectPatch{1, sep + 1, nil})
				members--
			default:
				patches = append(patches, objectPatch{1, ve, nil})
				members--
			}
			break
		}
		prevComma = sep
		return true
	})
	if end < 0 {
		return dst, false
	}
	slices.SortFunc(patches, func(a, b objectPatch) int { return a.start - b.start })
	prev := 0
	for _, p := range patches {
		dst = append(append(dst, obj[prev:p.start]...), p.with...)
		prev = p.end
	}
	dst = append(dst, obj[prev:end]...)
	for j, e := range edits {
		if found&(1<<j) != 0 || e.del || e.ifPresent {
			continue
		}
		if members > 0 {
			dst = append(dst, ',')
		}
		members++
		dst = append(appendSJSONString(dst, e.key), ':')
		dst = append(dst, e.value...)
	}
	return append(dst, obj[end:]...), true
}

// appendSJSONString appends s as sjson writes a string value: as it is
// between quotes when no byte needs escaping, else as encoding/json
// writes it (which also escapes <, > and &).
func appendSJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > 0x7f || c == '"' || c == '\\' {
			b, _ := json.Marshal(s)
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
