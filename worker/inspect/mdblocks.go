package inspect

import (
	"sort"
	"strings"
)

// The Markdown outline needs one thing from CommonMark's block structure:
// where the headings are and what they say. mdBlocks follows the spec's
// line-by-line block algorithm (containers — block quotes and list items
// — matched first, then lazy paragraph continuation, then new block
// starts), keeping only what decides whether a line is a heading: fenced
// and indented code, HTML blocks, thematic breaks, paragraphs (for setext
// underlines and lazy lines) and link reference definitions (a paragraph
// of definitions cannot become a setext heading; their labels decide
// which bracketed heading text is a link). One pass, no recursion, no
// backtracking: cost linear in the file whatever its nesting.

// mdHeading is one heading as the block pass finds it.
type mdHeading struct {
	row   int    // 0-based row of its first line, counted from the body's first row
	level int    // 1–6
	text  string // raw inline content; setext lines joined with "\n"
}

// mdContainer is an open block quote or list item.
type mdContainer struct {
	quote  bool
	indent int  // list item: columns its content is indented by
	empty  bool // list item that has no content yet (started with a blank line)
}

// mdLeafKind is the open leaf block of the innermost container.
type mdLeafKind int

const (
	leafNone mdLeafKind = iota
	leafParagraph
	leafFence
	leafIndentedCode
	leafHTML
)

type mdBlocks struct {
	containers []mdContainer
	// stoppers are the indexes of the containers a blank line does not
	// continue (block quotes, list items still empty), in order: a blank
	// line costs O(1) however deep the list items it continues are.
	stoppers []int
	leaf     mdLeafKind
	// paragraph
	para    []string // its lines, leading whitespace removed
	paraRow int
	// fenced code
	fenceChar byte
	fenceLen  int
	// HTML block: its end condition (see htmlEnd)
	htmlKind int

	headings []mdHeading
	labels   map[string]bool // link reference definition labels, normalized
}

// mdLine is the rest of one line being matched: s[i:], with pending
// columns left over from a tab partly consumed as indentation.
type mdLine struct {
	s       string
	i       int
	col     int     // column of s[i] (before pending)
	pending int     // columns of a partly consumed tab still counting as spaces
	tail    *[3]int // breakTails(s), computed when first needed
}

// indent returns the columns of whitespace at the cursor and the index
// of the first byte after it.
func (l *mdLine) indent() (cols, next int) {
	cols, col := l.pending, l.col
	j := l.i
	for ; j < len(l.s); j++ {
		switch l.s[j] {
		case ' ':
			cols++
			col++
		case '\t':
			w := 4 - col%4
			cols += w
			col += w
		default:
			return cols, j
		}
	}
	return cols, j
}

// skip consumes n columns of whitespace (n no more than indent's cols).
func (l *mdLine) skip(n int) {
	if l.pending >= n {
		l.pending -= n
		return
	}
	n -= l.pending
	l.pending = 0
	for n > 0 && l.i < len(l.s) {
		switch l.s[l.i] {
		case ' ':
			n--
			l.col++
			l.i++
		case '\t':
			w := 4 - l.col%4
			l.col += w
			l.i++
			if w > n {
				l.pending = w - n
				return
			}
			n -= w
		default:
			return
		}
	}
}

// skipAll consumes all whitespace at the cursor.
func (l *mdLine) skipAll() {
	cols, _ := l.indent()
	l.skip(cols)
}

// advance consumes n bytes that are not whitespace.
func (l *mdLine) advance(n int) {
	l.pending = 0
	l.i += n
	l.col += n
}

func (l *mdLine) rest() string { return l.s[l.i:] }
func (l *mdLine) blank() bool  { return strings.Trim(l.rest(), " \t") == "" }
func (l *mdLine) peek() byte   { return at(l.s, l.i) }
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// scanMarkdown runs the block pass over the body's rows.
func scanMarkdown(rows []string) *mdBlocks {
	b := &mdBlocks{labels: map[string]bool{}}
	for n, s := range rows {
		b.line(n, s)
	}
	b.closeLeaf()
	return b
}

func (b *mdBlocks) line(row int, s string) {
	l := &mdLine{s: s}
	matched := b.matchContainers(l)
	allMatched := matched == len(b.containers)
	if allMatched && b.continueVerbatim(l) {
		return
	}
	if !allMatched && b.leaf == leafParagraph && !l.blank() && b.lazyContinuation(l) {
		return
	}
	if !allMatched {
		b.closeLeaf()
		b.truncate(matched)
	}
	b.openBlocks(row, l)
}

// matchContainers consumes the prefixes of the open containers the line
// continues and returns how many it continues.
func (b *mdBlocks) matchContainers(l *mdLine) int {
	for k := range b.containers {
		c := &b.containers[k]
		cols, next := l.indent()
		if next == len(l.s) {
			// The rest is blank: it continues the containers up to the
			// next stopper.
			if i := sort.SearchInts(b.stoppers, k); i < len(b.stoppers) {
				return b.stoppers[i]
			}
			return len(b.containers)
		}
		if c.quote {
			if cols > 3 || at(l.s, next) != '>' {
				return k
			}
			l.skip(cols)
			l.advance(1)
			if cols, _ := l.indent(); cols > 0 {
				l.skip(1)
			}
			continue
		}
		if cols < c.indent {
			return k
		}
		l.skip(c.indent)
	}
	return len(b.containers)
}

// continueVerbatim feeds the line to an open fenced code, HTML block or
// indented code block when it belongs there.
func (b *mdBlocks) continueVerbatim(l *mdLine) bool {
	switch b.leaf {
	case leafFence:
		cols, next := l.indent()
		if cols <= 3 {
			if n := runOf(l.s, next, b.fenceChar); n >= b.fenceLen && strings.Trim(l.s[next+n:], " \t") == "" {
				b.leaf = leafNone
			}
		}
		return true
	case leafHTML:
		if b.htmlKind >= 6 && l.blank() {
			b.leaf = leafNone
			return true
		}
		if b.htmlKind < 6 && htmlEnds(b.htmlKind, l.rest()) {
			b.leaf = leafNone
		}
		return true
	case leafIndentedCode:
		if cols, _ := l.indent(); cols >= 4 || l.blank() {
			return true
		}
		b.leaf = leafNone
	}
	return false
}

// lazyContinuation: a line that does not continue every container still
// continues the innermost paragraph when it starts no block there (no
// restriction of a paragraph applies: the last matched container is not
// the paragraph, so any list item counts, and HTML of kind 7 and indented
// code never start while a paragraph could continue).
func (b *mdBlocks) lazyContinuation(l *mdLine) bool {
	probe := *l
	if cols, _ := probe.indent(); cols < 4 {
		probe.skip(cols)
		s := probe.rest()
		_, atx := atxLevel(s)
		_, fence := fenceOpen(s)
		_, item := listMarker(s)
		if k := htmlStart(s); s[0] == '>' || atx || fence > 0 || probe.thematicBreak() || item || k > 0 && k < 7 {
			return false
		}
	}
	b.para = append(b.para, strings.TrimLeft(l.rest(), " \t"))
	return true
}

// openBlocks starts the blocks the rest of the line opens, innermost
// last, and gives the line to the leaf it ends in.
func (b *mdBlocks) openBlocks(row int, l *mdLine) {
	for {
		cols, next := l.indent()
		if next == len(l.s) { // blank
			if b.leaf == leafParagraph {
				b.closeLeaf()
			}
			return
		}
		b.markContent()
		if cols >= 4 {
			if b.leaf == leafParagraph {
				b.para = append(b.para, strings.TrimLeft(l.rest(), " \t"))
				return
			}
			b.closeLeaf()
			b.leaf = leafIndentedCode
			return
		}
		l.skip(cols)
		s := l.rest()
		if s[0] == '>' {
			b.closeLeaf()
			l.advance(1)
			if c, _ := l.indent(); c > 0 {
				l.skip(1)
			}
			b.push(mdContainer{quote: true})
			continue
		}
		if level, ok := atxLevel(s); ok {
			b.closeLeaf()
			b.headings = append(b.headings, mdHeading{row: row, level: level, text: atxText(s[level:])})
			return
		}
		if ch, n := fenceOpen(s); n > 0 {
			b.closeLeaf()
			b.leaf, b.fenceChar, b.fenceLen = leafFence, ch, n
			return
		}
		if k := htmlStart(s); k > 0 && (k < 7 || b.leaf != leafParagraph) {
			b.closeLeaf()
			b.leaf, b.htmlKind = leafHTML, k
			if k < 6 && htmlEnds(k, s) {
				b.leaf = leafNone
			}
			return
		}
		if b.leaf == leafParagraph {
			if level := setextLevel(s); level > 0 && b.setext(level) {
				return
			}
		}
		if l.thematicBreak() {
			b.closeLeaf()
			return
		}
		if m, ok := listMarker(s); ok && (b.leaf != leafParagraph || m.interrupts) {
			b.closeLeaf()
			b.openListItem(l, m, cols)
			continue
		}
		if b.leaf != leafParagraph {
			b.closeLeaf()
			b.leaf, b.paraRow, b.para = leafParagraph, row, b.para[:0]
		}
		b.para = append(b.para, s)
		return
	}
}

// markContent records that the innermost list item has content now.
func (b *mdBlocks) markContent() {
	n := len(b.containers)
	if n == 0 || !b.containers[n-1].empty {
		return
	}
	b.containers[n-1].empty = false
	b.stoppers = b.stoppers[:len(b.stoppers)-1] // it was the last stopper
}

// push opens a container.
func (b *mdBlocks) push(c mdContainer) {
	if c.quote || c.empty {
		b.stoppers = append(b.stoppers, len(b.containers))
	}
	b.containers = append(b.containers, c)
}

// truncate closes the containers from index n on.
func (b *mdBlocks) truncate(n int) {
	b.containers = b.containers[:n]
	for len(b.stoppers) > 0 && b.stoppers[len(b.stoppers)-1] >= n {
		b.stoppers = b.stoppers[:len(b.stoppers)-1]
	}
}

// openListItem consumes a list marker (indented by before columns) and
// the spaces after it and pushes the item; its content indent follows the
// spec: the marker's indentation and width, then 1–4 spaces (5 or more,
// or none before the end of the line, count as 1).
func (b *mdBlocks) openListItem(l *mdLine, m listMark, before int) {
	l.advance(m.width)
	cols, next := l.indent()
	item := mdContainer{}
	switch {
	case next == len(l.s):
		item.indent, item.empty = before+m.width+1, true
		l.skipAll()
	case cols > 4:
		item.indent = before + m.width + 1
		l.skip(1)
	default:
		item.indent = before + m.width + cols
		l.skip(cols)
	}
	b.push(item)
}

// setext turns the open paragraph into a heading unless only link
// reference definitions are left of it; ok is false then (the underline
// is read as something else).
func (b *mdBlocks) setext(level int) bool {
	lines, rowsUsed := b.stripDefinitions(b.para)
	if len(lines) == 0 {
		b.para = b.para[:0]
		b.leaf = leafNone
		return false
	}
	b.headings = append(b.headings, mdHeading{row: b.paraRow + rowsUsed, level: level,
		text: strings.TrimRight(strings.Join(lines, "\n"), " \t")})
	b.leaf, b.para = leafNone, b.para[:0]
	return true
}

func (b *mdBlocks) closeLeaf() {
	if b.leaf == leafParagraph {
		b.stripDefinitions(b.para)
		b.para = b.para[:0]
	}
	b.leaf = leafNone
}

// stripDefinitions removes the link reference definitions a paragraph
// starts with, records their labels, and returns the rest and how many
// lines the definitions took.
func (b *mdBlocks) stripDefinitions(lines []string) ([]string, int) {
	used := 0
	for used < len(lines) && strings.HasPrefix(lines[used], "[") {
		label, n := linkDefinition(lines[used:])
		if n == 0 {
			break
		}
		b.labels[label] = true
		used += n
	}
	return lines[used:], used
}

// atxLevel reports an ATX heading opening: 1–6 '#' then a space, a tab or
// the end of the line.
func atxLevel(s string) (int, bool) {
	n := runOf(s, 0, '#')
	if n < 1 || n > 6 {
		return 0, false
	}
	if c := at(s, n); c != 0 && c != ' ' && c != '\t' {
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
	c := at(s, 0)
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
	c := at(s, 0)
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
	switch c := at(s, 0); {
	case c == '-' || c == '+' || c == '*':
		m.width = 1
		m.interrupts = true
	case c >= '0' && c <= '9':
		d := 0
		for d < len(s) && d < 10 && s[d] >= '0' && s[d] <= '9' {
			d++
		}
		if d > 9 || (at(s, d) != '.' && at(s, d) != ')') {
			return m, false
		}
		m.width = d + 1
		m.interrupts = s[:d] == "1"
	default:
		return m, false
	}
	c := at(s, m.width)
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

// htmlBlockTags are the tag names of HTML blocks of kind 6.
var htmlBlockTags = strings.Fields(`address article aside base basefont blockquote body caption center col
	colgroup dd details dialog dir div dl dt fieldset figcaption figure footer form frame frameset h1 h2 h3
	h4 h5 h6 head header hr html iframe legend li link main menu menuitem nav noframes ol optgroup option p
	param search section summary table tbody td tfoot th thead title tr track ul`)

// htmlStart returns the kind (1–7) of HTML block s starts, or 0.
func htmlStart(s string) int {
	if at(s, 0) != '<' {
		return 0
	}
	lower := strings.ToLower(s)
	for _, t := range []string{"script", "pre", "style", "textarea"} {
		if strings.HasPrefix(lower[1:], t) {
			if c := at(s, 1+len(t)); c == 0 || c == ' ' || c == '\t' || c == '>' {
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
	for end < len(name) && (isASCIILetter(name[end]) || name[end] >= '0' && name[end] <= '9' || end > 0 && name[end] == '-') {
		end++
	}
	for _, t := range htmlBlockTags {
		if name[:end] == t {
			if c := at(name, end); c == 0 || c == ' ' || c == '\t' || c == '>' || strings.HasPrefix(name[end:], "/>") {
				return 6
			}
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

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// linkDefinition parses a link reference definition at the start of
// lines (one paragraph's lines): `[label]: destination "title"`, the
// title optional and on the same or the next line. It returns the
// normalized label and the number of lines it takes (0: none).
func linkDefinition(lines []string) (string, int) {
	text := strings.Join(lines[:min(len(lines), 8)], "\n")
	end := labelEnd(text, 0)
	if end < 0 || at(text, end+1) != ':' {
		return "", 0
	}
	label := normalizeLabel(text[1:end])
	if label == "" {
		return "", 0
	}
	i := skipSpaceOneNewline(text, end+2)
	dest, ok := linkDestination(text, i)
	if !ok || dest == i {
		return "", 0
	}
	// Title, then only whitespace to the end of its line; without a valid
	// title the definition ends with the destination's line.
	afterDest := dest
	if t := skipSpaceOneNewline(text, dest); t > dest {
		if te, ok := linkTitle(text, t); ok && restOfLineBlank(text, te) {
			return label, lineCount(text, te)
		}
	}
	if !restOfLineBlank(text, afterDest) {
		return "", 0
	}
	return label, lineCount(text, afterDest)
}

// lineCount is the number of lines text[:i] touches, through the end of
// the line holding i.
func lineCount(text string, i int) int { return strings.Count(text[:i], "\n") + 1 }

func restOfLineBlank(text string, i int) bool {
	j := strings.IndexByte(text[i:], '\n')
	if j < 0 {
		j = len(text) - i
	}
	return strings.Trim(text[i:i+j], " \t") == ""
}

// skipSpaceOneNewline skips spaces and tabs and at most one line break.
func skipSpaceOneNewline(s string, i int) int {
	nl := false
	for i < len(s) {
		switch {
		case s[i] == ' ' || s[i] == '\t' || s[i] == '\v' || s[i] == '\f':
		case s[i] == '\n' && !nl:
			nl = true
		default:
			return i
		}
		i++
	}
	return i
}

// labelEnd returns the index of the ']' closing a link label that opens
// at s[i] ('['), or -1: no unescaped brackets inside, at most 999 bytes.
func labelEnd(s string, i int) int {
	if at(s, i) != '[' {
		return -1
	}
	for j := i + 1; j < len(s) && j-i <= 1000; j++ {
		switch s[j] {
		case '\\':
			j++
		case '[':
			return -1
		case ']':
			return j
		}
	}
	return -1
}

// normalizeLabel folds case and collapses whitespace, as label matching
// does; "" when the label is blank.
func normalizeLabel(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// linkDestination parses a destination at s[i]: <…> without line breaks,
// or a run without spaces or control characters whose parentheses
// balance. It returns the index after it.
func linkDestination(s string, i int) (int, bool) {
	if at(s, i) == '<' {
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case '\\':
				j++
			case '\n', '<':
				return 0, false
			case '>':
				return j + 1, true
			}
		}
		return 0, false
	}
	depth, j := 0, i
	for ; j < len(s); j++ {
		c := s[j]
		if strings.IndexByte(" \t\n\v\f\r", c) >= 0 {
			return j, true // unbalanced parentheses end at a space too, as goldmark reads them
		}
		switch c {
		case '\\':
			if j+1 < len(s) && isASCIIPunct(s[j+1]) {
				j++
			}
		case '(':
			depth++
			if depth > 32 {
				return 0, false
			}
		case ')':
			if depth == 0 {
				return j, j > i
			}
			depth--
		}
	}
	return j, depth == 0
}

// linkTitle parses a title at s[i]: "…", '…' or (…). It returns the index
// after it.
func linkTitle(s string, i int) (int, bool) {
	open := at(s, i)
	closer := open
	switch open {
	case '"', '\'':
	case '(':
		closer = ')'
	default:
		return 0, false
	}
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\':
			j++
		case s[j] == closer:
			return j + 1, true
		case open == '(' && s[j] == '(':
			return 0, false
		case s[j] == '\n' && j+1 < len(s) && s[j+1] == '\n':
			return 0, false
		}
	}
	return 0, false
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}
