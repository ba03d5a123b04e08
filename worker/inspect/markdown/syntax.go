package markdown

import (
	"strings"

	"hpatch-router/worker/inspect/scan"
)

// The line-level recognizers of CommonMark's block starts: what one line,
// its container prefixes and indentation removed, opens.

// atxLevel reports an ATX heading opening: 1–6 '#' then a space, a tab or
// the end of the line.
func atxLevel(s string) (int, bool) {
	n := runOf(s, 0, '#')
	if n < 1 || n > 6 {
		return 0, false
	}
	if c := scan.At(s, n); c != 0 && c != ' ' && c != '\t' {
		return 0, false
	}
	return n, true
}

// atxText is an ATX heading's content: without the surrounding
// whitespace and an optional closing run of '#' preceded by whitespace.
func atxText(s string) string {
	s = strings.Trim(s, " \t")
	t := strings.TrimRight(s, "#")
	if t == "" {
		return ""
	}
	if len(t) < len(s) && (t[len(t)-1] == ' ' || t[len(t)-1] == '\t') {
		s = strings.TrimRight(t, " \t")
	}
	return s
}

// fenceOpen reports a code fence opening: 3+ backticks (info string
// without backticks) or 3+ tildes.
func fenceOpen(s string) (byte, int) {
	c := scan.At(s, 0)
	if c != '`' && c != '~' {
		return 0, 0
	}
	n := runOf(s, 0, c)
	if n < 3 || c == '`' && strings.IndexByte(s[n:], '`') >= 0 {
		return 0, 0
	}
	return c, n
}

// setextLevel reports a setext underline: '=' (level 1) or '-' (level 2)
// repeated, then only whitespace.
func setextLevel(s string) int {
	c := scan.At(s, 0)
	if c != '=' && c != '-' {
		return 0
	}
	n := runOf(s, 0, c)
	if strings.Trim(s[n:], " \t") != "" {
		return 0
	}
	if c == '=' {
		return 1
	}
	return 2
}

// thematicBreak reports whether the rest of the line is a thematic break:
// 3+ of one of '*', '-', '_', with only spaces and tabs between and after.
// The line's tail is classified once (see mdLine.breakTail), so a line of
// many list markers ("- - - …") costs one pass, not one per marker.
func (l *mdLine) thematicBreak() bool {
	c := l.peek()
	k := strings.IndexByte("*-_", c)
	if k < 0 {
		return false
	}
	if l.tail == nil {
		l.tail = breakTails(l.s)
	}
	if l.tail[k] >= l.i {
		return false // another character follows
	}
	n := 0
	for j := l.i; j < len(l.s) && n < 3; j++ {
		if l.s[j] == c {
			n++
		}
	}
	return n >= 3
}

// breakTails returns, for '*', '-' and '_', the index of the last byte of
// s that is neither that character nor a space or tab (-1: none).
func breakTails(s string) *[3]int {
	t := [3]int{-1, -1, -1}
	for k, c := range []byte("*-_") {
		for i := len(s) - 1; i >= 0; i-- {
			if s[i] != c && s[i] != ' ' && s[i] != '\t' {
				t[k] = i
				break
			}
		}
	}
	return &t
}

type listMark struct {
	width      int  // bytes of the marker
	interrupts bool // may interrupt a paragraph: content follows, and an ordered list starts at 1
}

// listMarker reports a list item marker: '-', '+' or '*', or 1–9 digits
// then '.' or ')', followed by whitespace or the end of the line.
func listMarker(s string) (listMark, bool) {
	var m listMark
	switch c := scan.At(s, 0); {
	case c == '-' || c == '+' || c == '*':
		m.width = 1
		m.interrupts = true
	case c >= '0' && c <= '9':
		d := 0
		for d < len(s) && d < 10 && s[d] >= '0' && s[d] <= '9' {
			d++
		}
		if d > 9 || (scan.At(s, d) != '.' && scan.At(s, d) != ')') {
			return m, false
		}
		m.width = d + 1
		m.interrupts = s[:d] == "1"
	default:
		return m, false
	}
	c := scan.At(s, m.width)
	if c != 0 && c != ' ' && c != '\t' {
		return m, false
	}
	j := m.width
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if j == len(s) {
		m.interrupts = false // an empty item cannot interrupt a paragraph
	}
	return m, true
}

// runOf counts the bytes equal to c from s[i].
func runOf(s string, i int, c byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	return n
}

// htmlBlockTag reports the tag names of HTML blocks of kind 6.
func htmlBlockTag(name string) bool {
	switch name {
	case "address", "article", "aside", "base", "basefont", "blockquote", "body", "caption", "center",
		"col", "colgroup", "dd", "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption",
		"figure", "footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head",
		"header", "hr", "html", "iframe", "legend", "li", "link", "main", "menu", "menuitem", "nav",
		"noframes", "ol", "optgroup", "option", "p", "param", "search", "section", "summary", "table",
		"tbody", "td", "tfoot", "th", "thead", "title", "tr", "track", "ul":
		return true
	}
	return false
}

// htmlStart returns the kind (1–7) of HTML block s starts, or 0.
func htmlStart(s string) int {
	if scan.At(s, 0) != '<' {
		return 0
	}
	lower := strings.ToLower(s)
	for _, t := range []string{"script", "pre", "style", "textarea"} {
		if strings.HasPrefix(lower[1:], t) {
			if c := scan.At(s, 1+len(t)); c == 0 || c == ' ' || c == '\t' || c == '>' {
				return 1
			}
		}
	}
	switch {
	case strings.HasPrefix(s, "<!--"):
		return 2
	case strings.HasPrefix(s, "<?"):
		return 3
	case strings.HasPrefix(s, "<![CDATA["):
		return 5
	case len(s) > 2 && s[1] == '!' && s[2] >= 'A' && s[2] <= 'Z': // CommonMark 0.30, as goldmark
		return 4
	}
	name := lower[1:]
	name = strings.TrimPrefix(name, "/")
	end := 0
	for end < len(name) && (scan.IsASCIILetter(name[end]) || name[end] >= '0' && name[end] <= '9' || end > 0 && name[end] == '-') {
		end++
	}
	if htmlBlockTag(name[:end]) {
		if c := scan.At(name, end); c == 0 || c == ' ' || c == '\t' || c == '>' || strings.HasPrefix(name[end:], "/>") {
			return 6
		}
	}
	if n := htmlTag(s); n > 0 && strings.Trim(s[n:], " \t") == "" {
		return 7
	}
	return 0
}

// htmlEnds reports whether line s holds the end condition of an HTML
// block of kind 1–5.
func htmlEnds(kind int, s string) bool {
	switch kind {
	case 1:
		lower := strings.ToLower(s)
		for _, t := range []string{"</script>", "</pre>", "</style>", "</textarea>"} {
			if strings.Contains(lower, t) {
				return true
			}
		}
		return false
	case 2:
		return strings.Contains(s, "-->")
	case 3:
		return strings.Contains(s, "?>")
	case 4:
		return strings.Contains(s, ">")
	}
	return strings.Contains(s, "]]>")
}
