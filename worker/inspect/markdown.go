package inspect

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	yaml "go.yaml.in/yaml/v3"
)

// outlineMarkdown lists YAML front matter keys (top-level keys with scalar
// values; never the values) and every heading parsed by goldmark (ATX and
// setext, never inside code), each heading spanning its section: from its
// line to the line before the next heading of the same or a higher level.
func outlineMarkdown(data []byte, lines *Lines) (Result, error) {
	res := Result{Kind: "markup", ParseComplete: true}
	bodyStart := 0
	if fmFrom, fmTo, end, ok := frontMatter(data); ok {
		bodyStart = end
		entries, ok := frontMatterKeys(data[fmFrom:fmTo], lines.LineOf(fmFrom))
		res.Entries = append(res.Entries, entries...)
		if !ok {
			res.ParseComplete = false
		}
	}
	body := data[bodyStart:]
	doc := goldmark.New().Parser().Parse(text.NewReader(body))
	var headings []int // indexes into res.Entries
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		pos := h.Pos()
		if pos < 0 && h.Lines().Len() > 0 {
			pos = h.Lines().At(0).Start
		}
		if pos < 0 {
			return ast.WalkSkipChildren, nil
		}
		res.Entries = append(res.Entries, Entry{
			Kind: KindHeading, Name: headingText(h, body), Level: h.Level,
			Start: lines.LineOf(bodyStart + pos),
		})
		headings = append(headings, len(res.Entries)-1)
		return ast.WalkSkipChildren, nil
	})
	for i, hi := range headings {
		h := &res.Entries[hi]
		h.End = lines.Count()
		for _, ni := range headings[i+1:] {
			if next := res.Entries[ni]; next.Level <= h.Level {
				h.End = next.Start - 1
				break
			}
		}
	}
	return res, nil
}

// headingText is a heading's inline text without markup.
func headingText(n ast.Node, src []byte) string {
	var b strings.Builder
	var walk func(ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				b.Write(c.Segment.Value(src))
				if c.SoftLineBreak() || c.HardLineBreak() {
					b.WriteByte(' ')
				}
			case *ast.String:
				b.Write(c.Value)
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return strings.TrimSpace(b.String())
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

// frontMatterKeys lists top-level keys whose values are scalars. firstLine
// is the row of the YAML's first line. ok is false when the YAML is invalid.
func frontMatterKeys(y []byte, firstLine int) ([]Entry, bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal(y, &doc); err != nil {
		return nil, false
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, true
	}
	m := doc.Content[0]
	var out []Entry
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode {
			continue
		}
		line := firstLine + k.Line - 1
		out = append(out, Entry{Kind: KindFrontMatter, Name: k.Value, Start: line, End: line})
	}
	return out, true
}
