package jsonfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"hpatch-router/rows"
	"hpatch-router/worker/inspect/outline"
)

// MaxPointerDepth bounds how deep the JSON outline goes; deeper values are
// summarized by their ancestor's entry (type and line span) and skipped
// without recursion, so nesting depth costs no stack.
const MaxPointerDepth = 3

// maxJSONEntries bounds the entries kept in memory; far fewer fit in the
// output bound. Values past it are counted in outline.Result.Dropped.
const maxJSONEntries = 4096

// Outline streams a JSON document's tokens and lists one entry per value
// down to MaxPointerDepth: its JSON Pointer (RFC 6901; "" is the root), its
// type and its line span. Values are never shown. Invalid JSON after some
// entries gives those entries with ParseComplete false; invalid JSON before
// any is a parse error.
func Outline(data []byte, lines *outline.Lines) (outline.Result, error) {
	res := outline.Result{Kind: "data", ParseComplete: true}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	w := jsonWalker{dec: dec, data: data, lines: lines, res: &res}
	err := w.value("", 0)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			err = fmt.Errorf("data after the top-level value at line %d", lines.LineOf(int(dec.InputOffset())))
		}
	}
	if err != nil {
		if len(res.Entries) == 0 {
			return res, fmt.Errorf("JSON: %v", jsonErrorText(err))
		}
		res.ParseComplete = false
	}
	return res, nil
}

type jsonWalker struct {
	dec   *json.Decoder
	data  []byte
	lines *outline.Lines
	res   *outline.Result
}

// start is the offset of the next token: InputOffset is the end of the
// previous one, and separators and spaces follow it.
func (w *jsonWalker) start() int {
	off := int(w.dec.InputOffset())
	for off < len(w.data) && strings.IndexByte(" \t\r\n,:", w.data[off]) >= 0 {
		off++
	}
	return off
}

// value reads one value whose pointer is ptr at depth depth.
func (w *jsonWalker) value(ptr string, depth int) error {
	if depth > MaxPointerDepth {
		return w.skip()
	}
	from := w.start()
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	var e *outline.Entry
	if len(w.res.Entries) >= maxJSONEntries {
		w.res.Dropped++
	} else {
		w.res.Entries = append(w.res.Entries, outline.Entry{Kind: outline.KindPointer, Name: ptr, Start: w.lines.LineOf(from)})
		e = &w.res.Entries[len(w.res.Entries)-1]
	}
	idx := len(w.res.Entries) - 1
	typ := "null"
	switch t := tok.(type) {
	case json.Delim:
		typ = "object"
		if t == '[' {
			typ = "array"
		}
		for i := 0; w.dec.More(); i++ {
			child := ptr + "/" + strconv.Itoa(i)
			if t == '{' {
				kt, err := w.dec.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				child = ptr + "/" + escapePointer(k)
			}
			if err := w.value(child, depth+1); err != nil {
				return err
			}
		}
		if _, err := w.dec.Token(); err != nil { // closing delimiter
			return err
		}
	case string:
		typ = "string"
	case json.Number:
		typ = "number"
	case bool:
		typ = "boolean"
	}
	if e != nil {
		// Children may have grown the slice: address the entry again.
		e = &w.res.Entries[idx]
		e.ValueType = typ
		e.End = w.lines.LineOf(int(w.dec.InputOffset()) - 1)
	}
	return nil
}

// skip consumes one value, however deeply nested, iteratively.
func (w *jsonWalker) skip() error {
	level := 0
	for {
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				level++
			} else {
				level--
			}
		}
		if level == 0 {
			return nil
		}
	}
}

// escapePointer escapes one reference token (RFC 6901: ~ → ~0, / → ~1).
func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// jsonErrorText is err's message on one line, with the byte offset of a
// syntax error and one wording for every kind of truncated input.
func jsonErrorText(err error) string {
	var se *json.SyntaxError
	msg := err.Error()
	if errors.As(err, &se) {
		msg = fmt.Sprintf("%s (byte %d)", se.Error(), se.Offset)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "unexpected end of input"
	}
	return rows.OneLineSpaced(msg)
}
