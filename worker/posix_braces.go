package worker

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// keepPOSIXBraces stops mvdan/sh from brace-expanding a POSIX sh script.
// Its expander splits `{a,b}` and `{1..3}` in any unquoted literal of a
// word it splits into fields, whatever the language the script was parsed
// as; sh (POSIX, dash) has no brace expansion and prints them as written.
// Every unescaped `{` in the unquoted literals of those words — command
// arguments and for-loop lists — becomes a quoted `{`: the same text, no
// longer the start of a brace. (eval and `.` parse what they run as Bash
// inside mvdan/sh, beyond this rewrite.)
func keepPOSIXBraces(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			for _, w := range n.Args {
				quoteBraces(w)
			}
		case *syntax.WordIter:
			for _, w := range n.Items {
				quoteBraces(w)
			}
		}
		return true
	})
}

// quoteBraces replaces each unescaped `{` in w's literal parts with a
// single-quoted `{`.
func quoteBraces(w *syntax.Word) {
	var parts []syntax.WordPart
	for i, p := range w.Parts {
		lit, ok := p.(*syntax.Lit)
		if !ok || !strings.Contains(lit.Value, "{") {
			if parts != nil {
				parts = append(parts, p)
			}
			continue
		}
		if parts == nil {
			parts = append(make([]syntax.WordPart, 0, len(w.Parts)+2), w.Parts[:i]...)
		}
		parts = appendQuotedBraces(parts, lit)
	}
	if parts != nil {
		w.Parts = parts
	}
}

// appendQuotedBraces appends lit to parts split at its unescaped `{`s,
// each of which becomes a single-quoted part.
func appendQuotedBraces(parts []syntax.WordPart, lit *syntax.Lit) []syntax.WordPart {
	v, start := lit.Value, 0
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++ // the escaped byte stays in the literal
		case '{':
			if i > start {
				parts = append(parts, &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: v[start:i]})
			}
			parts = append(parts, &syntax.SglQuoted{Left: lit.ValuePos, Right: lit.ValueEnd, Value: "{"})
			start = i + 1
		}
	}
	if start < len(v) {
		parts = append(parts, &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: v[start:]})
	}
	return parts
}
