package markdown

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"hpatch-router/worker/inspect/scan"
)

// maxHeadingSource bounds the heading content the inline pass reads: a
// name longer than this is of no use in an outline, and the pass then
// costs nothing more on a hostile one-line file.
const maxHeadingSource = 4 << 10

// headingText renders a heading's inline content as plain text, the way
// CommonMark parses it: emphasis markers, link and image brackets and
// destinations, code span backticks, autolinks and raw HTML are gone;
// link and image text, code span content and everything else stay as
// written (backslash escapes and entity references included). Line breaks
// become one space. labels are the document's link reference definitions:
// a reference whose label is not among them stays literal text.
func headingText(src string, labels map[string]bool) string {
	if len(src) > maxHeadingSource {
		cut := maxHeadingSource
		for cut > 0 && !utf8.RuneStart(src[cut]) {
			cut--
		}
		src = src[:cut]
	}
	p := &inlineParser{src: src, labels: labels}
	p.parse()
	p.emphasis(0)
	var b strings.Builder
	for _, pc := range p.pieces {
		if !pc.dropped {
			b.WriteString(pc.text)
		}
	}
	return strings.TrimSpace(b.String())
}

// piece is one run of the inline content: literal text, a delimiter run
// of '*' or '_' (its text shrinks as emphasis consumes it), or a link or
// image opener.
type piece struct {
	text    string
	dropped bool // markup that renders as nothing
	delim   byte // '*' or '_' for a delimiter run
	orig    int  // the run's original length
	open    bool // delimiter run: can open; bracket: still active
	close   bool
	bracket byte // '[' or '!' for a link or image opener
	pos     int  // bracket: offset of the text after it
	removed bool // delimiter run no longer in the delimiter list
}

type inlineParser struct {
	src      string
	labels   map[string]bool
	pieces   []piece
	brackets []int // indexes of bracket pieces, innermost last
}

func (p *inlineParser) add(pc piece) { p.pieces = append(p.pieces, pc) }

func (p *inlineParser) literal(s string) {
	if n := len(p.pieces); n > 0 && p.pieces[n-1].delim == 0 && p.pieces[n-1].bracket == 0 && !p.pieces[n-1].dropped {
		p.pieces[n-1].text += s
		return
	}
	p.add(piece{text: s})
}

func (p *inlineParser) parse() {
	s := p.src
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			p.literal(" ") // a hard line break; what precedes it stays as written
			i += 2
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			p.literal(s[i : i+2])
			i += 2
		case c == '`':
			i = p.codeSpan(i)
		case c == '<':
			if n := autolink(s[i:]); n > 0 {
				p.add(piece{dropped: true})
				i += n
			} else if n := htmlInline(s[i:]); n > 0 {
				p.add(piece{dropped: true})
				i += n
			} else {
				p.literal("<")
				i++
			}
		case c == '*' || c == '_':
			i = p.delimiterRun(i)
		case c == '!' && i+1 < len(s) && s[i+1] == '[':
			p.brackets = append(p.brackets, len(p.pieces))
			p.add(piece{text: "![", bracket: '!', open: true, pos: i + 2})
			i += 2
		case c == '[':
			p.brackets = append(p.brackets, len(p.pieces))
			p.add(piece{text: "[", bracket: '[', open: true, pos: i + 1})
			i++
		case c == ']':
			i = p.closeBracket(i)
		case c == '\n':
			p.softBreak()
			i++
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
		default:
			j := i + 1
			for j < len(s) && !strings.ContainsRune("\\`<*_![]\n", rune(s[j])) {
				j++
			}
			p.literal(s[i:j])
			i = j
		}
	}
}

// softBreak ends a line: its trailing whitespace goes, one space stays.
func (p *inlineParser) softBreak() {
	if n := len(p.pieces); n > 0 && p.pieces[n-1].delim == 0 && p.pieces[n-1].bracket == 0 {
		p.pieces[n-1].text = strings.TrimRight(p.pieces[n-1].text, " \t")
	}
	p.literal(" ")
}

// codeSpan reads a code span opening at s[i] (a backtick run) and returns
// where the parse continues: after the closing run of the same length,
// or after the opening run when there is none (it is literal).
func (p *inlineParser) codeSpan(i int) int {
	s := p.src
	n := runOf(s, i, '`')
	for j := i + n; j < len(s); {
		k := strings.IndexByte(s[j:], '`')
		if k < 0 {
			break
		}
		j += k
		m := runOf(s, j, '`')
		if m == n {
			content := strings.ReplaceAll(s[i+n:j], "\n", " ")
			if len(content) >= 2 && content[0] == ' ' && content[len(content)-1] == ' ' && strings.Trim(content, " ") != "" {
				content = content[1 : len(content)-1]
			}
			p.add(piece{text: content})
			return j + m
		}
		j += m
	}
	p.literal(s[i : i+n])
	return i + n
}

// delimiterRun reads a run of '*' or '_' and records whether it can open
// or close emphasis (the flanking rules).
func (p *inlineParser) delimiterRun(i int) int {
	s := p.src
	c := s[i]
	n := runOf(s, i, c)
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	if i == 0 {
		before = '\n'
	}
	after, _ := utf8.DecodeRuneInString(s[i+n:])
	if i+n == len(s) {
		after = '\n'
	}
	left := !isSpaceRune(after) && (!isPunctRune(after) || isSpaceRune(before) || isPunctRune(before))
	right := !isSpaceRune(before) && (!isPunctRune(before) || isSpaceRune(after) || isPunctRune(after))
	pc := piece{text: s[i : i+n], delim: c, orig: n, open: left, close: right}
	if c == '_' {
		pc.open = left && (!right || isPunctRune(before))
		pc.close = right && (!left || isPunctRune(after))
	}
	p.add(pc)
	return i + n
}

func isSpaceRune(r rune) bool { return r == utf8.RuneError || unicode.IsSpace(r) }

func isPunctRune(r rune) bool {
	if r < utf8.RuneSelf {
		return isASCIIPunct(byte(r))
	}
	return unicode.IsPunct(r) || unicode.IsSymbol(r)
}

// closeBracket handles ']' at s[i]: a link or image when an opener is
// active and a destination, a defined reference or a defined shortcut
// follows; its brackets and destination then render as nothing.
func (p *inlineParser) closeBracket(i int) int {
	if len(p.brackets) == 0 {
		p.literal("]")
		return i + 1
	}
	oi := p.brackets[len(p.brackets)-1]
	p.brackets = p.brackets[:len(p.brackets)-1]
	opener := &p.pieces[oi]
	if !opener.open {
		opener.bracket = 0
		p.literal("]")
		return i + 1
	}
	end, ok := p.linkTail(opener.pos, i)
	if !ok {
		opener.bracket = 0
		p.literal("]")
		return i + 1
	}
	p.emphasis(oi + 1)
	for j := oi + 1; j < len(p.pieces); j++ {
		p.pieces[j].removed = true // the link's delimiters match nothing outside it
	}
	if opener.bracket == '[' {
		for _, b := range p.brackets {
			if p.pieces[b].bracket == '[' {
				p.pieces[b].open = false // no link inside a link
			}
		}
	}
	opener.dropped, opener.bracket = true, 0
	p.add(piece{dropped: true})
	return end
}

// linkTail checks what follows the ']' at s[i] of a bracket whose text
// starts at s[start]: an inline destination (…), a full reference […], a
// collapsed [] or a shortcut, the label defined. It returns where the
// link ends.
func (p *inlineParser) linkTail(start, i int) (int, bool) {
	s := p.src
	if scan.At(s, i+1) == '(' {
		if end, ok := inlineDestination(s, i+2); ok {
			return end, true
		}
	}
	if j := labelEnd(s, i+1); j >= 0 {
		label := normalizeLabel(s[i+2 : j])
		if label == "" {
			label = normalizeLabel(s[start:i])
		}
		return j + 1, p.labels[label]
	}
	return i + 1, p.labels[normalizeLabel(s[start:i])]
}

// inlineDestination parses `dest "title")` after the '(' of an inline
// link, whitespace around each part allowed; it returns the index after
// the ')'.
func inlineDestination(s string, i int) (int, bool) {
	i = skipSpaceOneNewline(s, i)
	if scan.At(s, i) == ')' {
		return i + 1, true
	}
	end, ok := linkDestination(s, i)
	if !ok {
		return 0, false
	}
	j := skipSpaceOneNewline(s, end)
	if j > end {
		if t, ok := linkTitle(s, j); ok {
			j = skipSpaceOneNewline(s, t)
		}
	}
	if scan.At(s, j) != ')' {
		return 0, false
	}
	return j + 1, true
}

// emphasis matches the delimiter runs from piece bottom on, as the
// CommonMark algorithm does, and shrinks the matched runs; unmatched
// runs stay literal. openersBottom keeps it linear.
func (p *inlineParser) emphasis(bottom int) {
	type key struct {
		c       byte
		canOpen bool
		mod     int
	}
	openersBottom := map[key]int{}
	for ci := bottom; ci < len(p.pieces); ci++ {
		closer := &p.pieces[ci]
		if closer.delim == 0 || closer.removed || !closer.close || len(closer.text) == 0 {
			continue
		}
		k := key{closer.delim, closer.open, closer.orig % 3}
		floor := max(bottom, openersBottom[k])
		found := -1
		for oi := ci - 1; oi >= floor; oi-- {
			op := &p.pieces[oi]
			if op.delim != closer.delim || op.removed || !op.open || len(op.text) == 0 {
				continue
			}
			if (op.close || closer.open) && (op.orig+closer.orig)%3 == 0 && !(op.orig%3 == 0 && closer.orig%3 == 0) {
				continue
			}
			found = oi
			break
		}
		if found < 0 {
			openersBottom[k] = ci
			if !closer.open {
				closer.removed = true
			}
			continue
		}
		op := &p.pieces[found]
		use := 1
		if len(op.text) >= 2 && len(closer.text) >= 2 {
			use = 2
		}
		op.text, closer.text = op.text[use:], closer.text[use:]
		for j := found + 1; j < ci; j++ {
			if p.pieces[j].delim != 0 {
				p.pieces[j].removed = true
			}
		}
		if len(closer.text) > 0 {
			ci-- // the rest of the closer may close again
		}
	}
}

// autolink returns the length of a URI or email autolink at s[0] ('<').
func autolink(s string) int {
	end := strings.IndexByte(s, '>')
	if end < 0 {
		return 0
	}
	body := s[1:end]
	if scheme, _, ok := strings.Cut(body, ":"); ok && len(scheme) >= 2 && len(scheme) <= 32 && scan.IsASCIILetter(scheme[0]) {
		valid := true
		for i := 1; i < len(scheme) && valid; i++ {
			c := scheme[i]
			valid = scan.IsASCIILetter(c) || c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-'
		}
		if valid && !strings.ContainsAny(body, " \t\n<") {
			return end + 1
		}
	}
	if local, domain, ok := strings.Cut(body, "@"); ok && local != "" && domain != "" &&
		strings.Trim(local, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.!#$%&'*+/=?^_`{|}~-") == "" &&
		strings.Trim(domain, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") == "" &&
		!strings.HasPrefix(domain, ".") && !strings.HasSuffix(domain, ".") && !strings.Contains(domain, "..") {
		return end + 1
	}
	return 0
}

// htmlInline returns the length of raw HTML at s[0] ('<'): a tag, a
// comment, a processing instruction, a declaration or a CDATA section.
func htmlInline(s string) int {
	switch {
	case strings.HasPrefix(s, "<!-->"):
		return 5
	case strings.HasPrefix(s, "<!--->"):
		return 6
	case strings.HasPrefix(s, "<!--"):
		return closedBy(s, 4, "-->")
	case strings.HasPrefix(s, "<?"):
		return closedBy(s, 2, "?>")
	case strings.HasPrefix(s, "<![CDATA["):
		return closedBy(s, 9, "]]>")
	case len(s) > 2 && s[1] == '!' && s[2] >= 'A' && s[2] <= 'Z': // CommonMark 0.30, as goldmark
		return closedBy(s, 2, ">")
	}
	return htmlTag(s)
}

func closedBy(s string, from int, end string) int {
	if i := strings.Index(s[from:], end); i >= 0 {
		return from + i + len(end)
	}
	return 0
}

// htmlTag returns the length of a complete open tag (with attributes) or
// closing tag at s[0], or 0.
func htmlTag(s string) int {
	i := 1
	closing := scan.At(s, 1) == '/'
	if closing {
		i++
	}
	if !scan.IsASCIILetter(scan.At(s, i)) {
		return 0
	}
	for i < len(s) && (scan.IsASCIILetter(s[i]) || s[i] >= '0' && s[i] <= '9' || s[i] == '-') {
		i++
	}
	if closing {
		i = skipHTMLSpace(s, i)
		if scan.At(s, i) == '>' {
			return i + 1
		}
		return 0
	}
	for {
		j := skipHTMLSpace(s, i)
		switch scan.At(s, j) {
		case '>':
			return j + 1
		case '/':
			if scan.At(s, j+1) == '>' {
				return j + 2
			}
			return 0
		}
		if j == i {
			return 0 // an attribute needs whitespace before it
		}
		if i = htmlAttribute(s, j); i == 0 {
			return 0
		}
	}
}

// htmlAttribute returns the index after an attribute starting at s[i].
func htmlAttribute(s string, i int) int {
	c := scan.At(s, i)
	if !scan.IsASCIILetter(c) && c != '_' && c != ':' {
		return 0
	}
	for i < len(s) && (scan.IsASCIILetter(s[i]) || s[i] >= '0' && s[i] <= '9' || strings.IndexByte("_.:-", s[i]) >= 0) {
		i++
	}
	j := skipHTMLSpace(s, i)
	if scan.At(s, j) != '=' {
		return i
	}
	j = skipHTMLSpace(s, j+1)
	switch q := scan.At(s, j); q {
	case '"', '\'':
		k := strings.IndexByte(s[j+1:], q)
		if k < 0 {
			return 0
		}
		return j + 1 + k + 1
	case 0:
		return 0
	}
	k := j
	for k < len(s) && strings.IndexByte(" \t\n\"'=<>`", s[k]) < 0 {
		k++
	}
	if k == j {
		return 0
	}
	return k
}

func skipHTMLSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
		i++
	}
	return i
}
