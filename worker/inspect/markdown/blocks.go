package markdown

import (
	"sort"
	"strings"

	"hpatch-router/worker/inspect/scan"
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
func (l *mdLine) peek() byte   { return scan.At(l.s, l.i) }

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
			if cols > 3 || scan.At(l.s, next) != '>' {
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
