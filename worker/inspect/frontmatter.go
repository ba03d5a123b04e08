package inspect

import "strings"

// YAML front matter is read by a line scanner that knows the block
// mapping at the top level and nothing deeper: it lists the top-level keys
// whose values are scalars (plain, quoted or block scalars, or empty) and
// skips keys whose values are sequences, mappings or aliases. Front matter
// is small and shallow; the scanner costs one pass and no tables at
// start-up (a full YAML library initialises its tables in every process
// that links it). What it cannot read as such a mapping — a top-level
// line that is not a key, indentation by tabs, a key's plain value
// followed by a nested key, an unterminated quote or flow collection, an
// alias with no anchor before it — makes the front matter invalid: no
// keys, parse_complete false, as a YAML parser's error would.

// fmValue is how a top-level key's value reads.
type fmValue int

const (
	fmScalar  fmValue = iota
	fmNested          // sequence, mapping or alias: not listed
	fmPending         // nothing on the key's line: the next lines decide
)

// fmScanner carries the state across the front matter's lines.
type fmScanner struct {
	entries []Entry
	anchors map[string]bool

	key      *Entry  // the last top-level key, until its value is known
	value    fmValue // of key
	plain    bool    // key's value is a plain scalar (an indented key after it is an error)
	block    bool    // inside a block scalar: indented lines are its content
	quote    byte    // inside a quoted scalar spanning lines
	flow     int     // open flow brackets of a value spanning lines
	explicit bool    // "? key" read, ": value" expected
	seq      bool    // the last key's value is a sequence at column 0
	broken   bool    // a comment line ended the last key's plain value
	doc      fmDoc   // what the top level turned out to be
}

// fmDoc is what the front matter's top level is.
type fmDoc int

const (
	docUnknown fmDoc = iota
	docMapping
	docOther // a sequence or a scalar: no keys, and no key may follow
)

// frontMatterKeys lists top-level keys whose values are scalars. firstLine
// is the row of the YAML's first line. ok is false when the YAML is
// invalid.
func frontMatterKeys(y []byte, firstLine int) ([]Entry, bool) {
	s := &fmScanner{anchors: map[string]bool{}}
	lines := strings.Split(string(y), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, line := range lines {
		line = strings.TrimSuffix(line, "\r")
		if !s.line(line, firstLine+i) {
			return nil, false
		}
	}
	if s.quote != 0 || s.flow > 0 || s.explicit {
		return nil, false
	}
	s.settle(fmScalar)
	return s.entries, true
}

// line reads one line; false when the YAML cannot be what it should be.
func (s *fmScanner) line(line string, row int) bool {
	if s.quote != 0 {
		rest, ok := s.closeQuote(line, 0)
		return ok && s.afterValue(rest)
	}
	if s.flow > 0 {
		rest, ok := s.scanFlow(line)
		return ok && s.afterValue(rest)
	}
	body := strings.TrimLeft(line, " ")
	indented := len(body) < len(line)
	if body == "" || body[0] == '#' {
		s.broken = s.broken || s.plain && body != "" && indented
		return true
	}
	if strings.HasPrefix(body, "\t") || !indented && strings.HasPrefix(line, "\t") {
		return s.block && indented // a tab may only sit inside a block scalar's content
	}
	if s.block {
		if indented {
			return true
		}
		s.block = false
	}
	if indented {
		return s.nested(body)
	}
	if strings.HasPrefix(body, "- ") || body == "-" {
		if s.value == fmPending {
			s.settle(fmNested) // key:\n- item: a sequence at the key's indentation
			s.seq = true
		}
		if s.seq {
			s.anchorsIn(body)
			return true
		}
		return s.other() // a top-level sequence
	}
	s.seq = false
	if s.explicit {
		s.explicit = false
		if strings.HasPrefix(body, ":") {
			return s.readValue(body[1:])
		}
		s.settle(fmScalar) // "? key" alone: its value is empty
	}
	return s.topKey(body, row)
}

// other records a top level that is not a mapping; false after keys.
func (s *fmScanner) other() bool {
	if s.doc == docMapping {
		return false
	}
	s.doc = docOther
	return true
}

// mapping records a top-level key; false after a sequence or a scalar.
func (s *fmScanner) mapping() bool {
	if s.doc == docOther {
		return false
	}
	s.doc = docMapping
	return true
}

// nested reads an indented line below the last key.
func (s *fmScanner) nested(body string) bool {
	if s.seq || s.doc == docOther {
		s.anchorsIn(body)
		return true // inside a sequence item, or a document with no keys
	}
	switch {
	case s.key != nil && s.value == fmPending:
		if strings.HasPrefix(body, "- ") || body == "-" || hasMappingColon(body) || strings.HasPrefix(body, "? ") {
			s.settle(fmNested)
		} else {
			s.settle(fmScalar) // a plain scalar on the following lines
			s.plain = true
		}
	case s.plain && (s.broken || hasMappingColon(body)):
		return false // "a: 1\n  b: 2": a mapping value after a scalar
	}
	s.anchorsIn(body)
	return true
}

// topKey reads "key: value" at column 0.
func (s *fmScanner) topKey(body string, row int) bool {
	s.settle(fmScalar)
	if strings.HasPrefix(body, "? ") || body == "?" {
		name := strings.TrimSpace(strings.TrimPrefix(body, "?"))
		if !s.mapping() {
			return false
		}
		s.key = &Entry{Kind: KindFrontMatter, Name: unquote(name), Start: row, End: row}
		s.value, s.explicit = fmPending, true
		if name == "" || strings.ContainsAny(name[:1], "[{") {
			s.key = nil
		}
		return true
	}
	name, rest, ok := splitKey(body)
	if !ok {
		if body[0] == '"' || body[0] == '\'' { // a quoted scalar document
			s.quote = body[0]
			rest, _ := s.closeQuote(body, 1)
			return s.other() && s.afterValue(rest)
		}
		return s.other() // a scalar document; after keys, an error
	}
	if !s.mapping() {
		return false
	}
	s.key = &Entry{Kind: KindFrontMatter, Name: name, Start: row, End: row}
	return s.readValue(rest)
}

// readValue classifies the text after a key's colon.
func (s *fmScanner) readValue(v string) bool {
	v = strings.TrimLeft(v, " \t")
	// Node properties: an anchor and a tag may precede the value.
	for len(v) > 0 && (v[0] == '&' || v[0] == '!') {
		word, rest, _ := strings.Cut(v, " ")
		if v[0] == '&' {
			s.anchors[word[1:]] = true
		}
		v = strings.TrimLeft(rest, " \t")
	}
	s.plain, s.broken = false, false
	switch {
	case v == "" || v[0] == '#':
		s.value = fmPending
		return true
	case v[0] == '*':
		name, _, _ := strings.Cut(v[1:], " ")
		if !s.anchors[name] {
			return false // an alias of nothing
		}
		s.value = fmNested
		return true
	case v[0] == '[' || v[0] == '{':
		s.value = fmNested
		rest, ok := s.scanFlow(v)
		return ok && s.afterValue(rest)
	case v[0] == '|' || v[0] == '>':
		s.value, s.block = fmScalar, true
		return true
	case v[0] == '"' || v[0] == '\'':
		s.value, s.quote = fmScalar, v[0]
		rest, ok := s.closeQuote(v, 1)
		return ok && s.afterValue(rest)
	}
	s.value, s.plain = fmScalar, true
	// "a: b: c" is no scalar; '@' and '`' are reserved to start one.
	return !hasMappingColon(stripComment(v)) && v[0] != '@' && v[0] != '`'
}

// afterValue checks what follows a closed quote or flow collection on
// its line: nothing but a comment.
func (s *fmScanner) afterValue(rest string) bool {
	if s.quote != 0 || s.flow > 0 {
		return true // still open; the next line continues it
	}
	rest = strings.TrimLeft(rest, " \t")
	return rest == "" || rest[0] == '#'
}

// closeQuote scans a quoted scalar from line[from:]; it returns what
// follows the closing quote, or leaves s.quote set when the line ends
// inside it.
func (s *fmScanner) closeQuote(line string, from int) (string, bool) {
	if i := quoteEnd(line, from, s.quote); i >= 0 {
		s.quote = 0
		return line[i+1:], true
	}
	return "", true
}

// quoteEnd is the index of the quote q that closes a scalar quoted with
// it, searching from s[from]: a double-quoted scalar escapes with '\\', a
// single-quoted one doubles the quote. -1 when s ends first.
func quoteEnd(s string, from int, q byte) int {
	for i := from; i < len(s); i++ {
		switch {
		case q == '"' && s[i] == '\\':
			i++
		case s[i] == q && q == '\'' && i+1 < len(s) && s[i+1] == '\'':
			i++
		case s[i] == q:
			return i
		}
	}
	return -1
}

// scanFlow follows the brackets of a flow collection (quotes inside
// skipped) and returns what follows its end, or leaves s.flow > 0 when
// the line ends inside it.
func (s *fmScanner) scanFlow(line string) (string, bool) {
	for i := 0; i < len(line); i++ {
		switch c := line[i]; c {
		case '[', '{':
			s.flow++
		case ']', '}':
			s.flow--
			if s.flow < 0 {
				return "", false
			}
			if s.flow == 0 {
				return line[i+1:], true
			}
		case '"', '\'':
			s.quote = c
			rest, _ := s.closeQuote(line, i+1)
			if s.quote != 0 {
				return "", false // a quote left open inside a flow collection
			}
			i = len(line) - len(rest) - 1
		case '#':
			if i == 0 || line[i-1] == ' ' {
				return "", true
			}
		}
	}
	return "", true
}

// settle records the last key once its value is known: listed when the
// value is a scalar.
func (s *fmScanner) settle(v fmValue) {
	if s.key == nil {
		return
	}
	if s.value == fmPending {
		s.value = v
	}
	if s.value == fmScalar && !s.explicit {
		s.entries = append(s.entries, *s.key)
	}
	s.key = nil
	s.value = fmScalar
}

// anchorsIn records the anchors an indented line defines ("&name").
func (s *fmScanner) anchorsIn(body string) {
	for _, f := range strings.Fields(body) {
		if len(f) > 1 && f[0] == '&' {
			s.anchors[f[1:]] = true
		}
	}
}

// splitKey splits "key: value" (or "key:" at the end of the line); the
// key plain or quoted.
func splitKey(body string) (name, rest string, ok bool) {
	if body[0] == '"' || body[0] == '\'' {
		i := quoteEnd(body, 1, body[0])
		if i < 0 {
			return "", "", false
		}
		after := strings.TrimLeft(body[i+1:], " \t")
		if !strings.HasPrefix(after, ":") {
			return "", "", false
		}
		return unquote(body[:i+1]), after[1:], true
	}
	if strings.IndexByte("-?:,[]{}#&*!|>%@`", body[0]) >= 0 && !(strings.IndexByte("-?:", body[0]) >= 0 && len(body) > 1 && body[1] != ' ') {
		return "", "", false
	}
	i := mappingColon(body)
	if i < 0 {
		return "", "", false
	}
	return strings.TrimRight(body[:i], " \t"), body[i+1:], true
}

// mappingColon is the index of the ':' that ends a plain key (followed by
// a space, a tab or the end), or -1; a comment ends the search.
func mappingColon(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ':':
			if i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t' {
				return i
			}
		case '#':
			if i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
				return -1
			}
		}
	}
	return -1
}

func hasMappingColon(s string) bool {
	if s == "" || s[0] == '"' || s[0] == '\'' {
		_, _, ok := splitKey(s + " ")
		return ok && s != ""
	}
	return mappingColon(s) >= 0
}

// stripComment drops a " # comment" from a plain value.
func stripComment(v string) string {
	for i := 1; i < len(v); i++ {
		if v[i] == '#' && (v[i-1] == ' ' || v[i-1] == '\t') {
			return v[:i]
		}
	}
	return v
}

// unquote returns a quoted key's text (escapes kept as written but the
// doubled single quote).
func unquote(k string) string {
	if len(k) >= 2 && (k[0] == '"' || k[0] == '\'') && k[len(k)-1] == k[0] {
		inner := k[1 : len(k)-1]
		if k[0] == '\'' {
			return strings.ReplaceAll(inner, "''", "'")
		}
		return inner
	}
	return k
}
