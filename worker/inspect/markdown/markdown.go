package markdown

import (
	"bytes"
	"hpatch-router/rows"

	"hpatch-router/worker/inspect/outline"
)

// Outline lists YAML front matter keys (top-level keys with scalar
// values; never the values; frontmatter.go) and every heading as
// CommonMark reads it (ATX and setext, in block quotes and list items too,
// never inside code or HTML blocks; blocks.go, heading text by
// inline.go), each heading spanning its section: from its line to the
// line before the next heading of the same or a higher level.
func Outline(data []byte, lines *outline.Lines) (outline.Result, error) {
	res := outline.Result{Kind: "markup", ParseComplete: true}
	bodyStart := 0
	if fmFrom, fmTo, end, ok := frontMatter(data); ok {
		bodyStart = end
		entries, ok := frontMatterKeys(data[fmFrom:fmTo], lines.LineOf(fmFrom))
		res.Entries = append(res.Entries, entries...)
		if !ok {
			res.ParseComplete = false
		}
	}
	first := 0 // the body's first row, 0-based
	if bodyStart > 0 {
		first = lines.LineOf(bodyStart) - 1
		if bodyStart >= len(data) {
			first = lines.Count()
		}
	}
	body := make([]string, 0, lines.Count()-first)
	for r := range rows.All(data[min(bodyStart, len(data)):]) {
		body = append(body, string(r.Text))
	}
	blocks := scanMarkdown(body)
	// A heading's section ends before the next heading of the same or a
	// higher level: a stack of the headings still open, kept in one pass.
	var open []int // indexes into res.Entries, levels increasing
	for _, h := range blocks.headings {
		start := first + h.row + 1
		for len(open) > 0 && res.Entries[open[len(open)-1]].Level >= h.level {
			res.Entries[open[len(open)-1]].End = start - 1
			open = open[:len(open)-1]
		}
		res.Entries = append(res.Entries, outline.Entry{
			Kind: outline.KindHeading, Name: headingText(h.text, blocks.labels), Level: h.level, Start: start,
		})
		open = append(open, len(res.Entries)-1)
	}
	for _, i := range open {
		res.Entries[i].End = lines.Count()
	}
	return res, nil
}

// frontMatter finds YAML front matter: a first line "---", then the YAML,
// then a line "---" or "...". from/to delimit the YAML; end is where the
// Markdown body starts.
func frontMatter(data []byte) (from, to, end int, ok bool) {
	first, rest, found := cutLine(data)
	if !found || string(first) != "---" {
		return 0, 0, 0, false
	}
	from = len(data) - len(rest)
	for off := from; off < len(data); {
		line, next, _ := cutLine(data[off:])
		if s := string(line); s == "---" || s == "..." {
			return from, off, len(data) - len(next), true
		}
		off = len(data) - len(next)
	}
	return 0, 0, 0, false
}

// cutLine splits off the first line (without its LF or CRLF terminator).
func cutLine(data []byte) (line, rest []byte, found bool) {
	line, rest, found = bytes.Cut(data, []byte{'\n'})
	return bytes.TrimSuffix(line, []byte{'\r'}), rest, found
}
