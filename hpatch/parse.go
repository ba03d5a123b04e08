package hpatch

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"hpatch-router/rows"
	"hpatch-router/scriptref"
)

// heredocWord opens and closes a raw VALUE.
const heredocWord = "PATCH"

// Parse parses hpatch input. It checks syntax — exactly the language
// of the Lark grammar the `hpatch` tool declares (plugins/hpatch.lark, kept
// in step by grammar_test.go) — and each id against the artifact id rule
// (scriptref.ParseRef), which the grammar leaves to the store; Apply and the
// workspace resolver verify the targets against the files.
func Parse(text string) (*Patch, error) {
	if !utf8.ValidString(text) {
		return nil, ErrorAt(0, "edit is not valid UTF-8")
	}
	if strings.IndexByte(text, 0) >= 0 {
		return nil, ErrorAt(0, "edit contains a NUL byte")
	}
	ps := &patchParser{rows: rows.Split([]byte(text)), p: &Patch{}, byID: map[string]*Section{}}
	for ps.i = 0; ps.i < len(ps.rows); ps.i++ {
		line := trimBlank(string(ps.rows[ps.i].Text))
		if line == "" {
			continue
		}
		if err := ps.line(line); err != nil {
			return nil, err
		}
	}
	return ps.p, ps.end()
}

// sectionState is what the current section allows next.
type sectionState int

const (
	needOp    sectionState = iota // after `in`: an operation, or for a file `mv`/`rm`
	openOps                       // after an operation or `mv`: more operations or a new section
	needValue                     // after `new PATH`: its `type VALUE`
	closed                        // after `rm` or a new file's VALUE: only a new section
)

// patchParser reads an edit line by line; each line decides what may
// follow it, as the grammar's right-linear rules do.
type patchParser struct {
	rows  []rows.Row
	i     int // index of the current row
	p     *Patch
	byID  map[string]*Section
	cur   *Section
	state sectionState
	mixed bool // the kind of the first section is set
}

func (ps *patchParser) ln() int { return ps.i + 1 }

func (ps *patchParser) line(line string) error {
	word, rest := cutSpace(line)
	rest = trimBlank(rest)
	switch word {
	case "in", "new":
		if err := ps.endSection(); err != nil {
			return err
		}
		return ps.begin(word, rest)
	case "type", "add":
		return ps.op(word, rest)
	case "mv", "rm":
		return ps.fileCommand(word, rest)
	}
	return ErrorAt(ps.ln(), "unknown command %q; lines are `in @shell/<id>` or `in PATH`, `new PATH`, `type TARGET VALUE`, `add DEST VALUE`, `mv DEST`, `rm`", clip(word))
}

// begin starts the section of an `in` or `new` line.
func (ps *patchParser) begin(word, rest string) error {
	ln := ps.ln()
	if rest == "" {
		return ErrorAt(ln, "`%s` needs a file: `%s PATH` (or `in @shell/<id>`)", word, word)
	}
	script := word == "in" && rest[0] == '@'
	if ps.mixed && script != !ps.p.Workspace {
		return ErrorAt(ln, "one hpatch input edits either @shell/ scripts or workspace files, not both; send them as two hpatch calls")
	}
	ps.mixed, ps.p.Workspace = true, !script
	if script {
		id, err := parseIn(ln, rest)
		if err != nil {
			return err
		}
		if ps.cur = ps.byID[id]; ps.cur == nil {
			ps.cur = &Section{ID: id, Line: ln}
			ps.byID[id] = ps.cur
			ps.p.Sections = append(ps.p.Sections, ps.cur)
		}
		ps.state = needOp
		return nil
	}
	path, err := parsePath(rest)
	if err != nil {
		return ErrorAt(ln, "%s: %v", word, err)
	}
	ps.cur = &Section{Path: path, Line: ln}
	ps.state = needOp
	if word == "new" {
		ps.cur.Kind, ps.state = SectionNew, needValue
	}
	ps.p.Sections = append(ps.p.Sections, ps.cur)
	return nil
}

// endSection checks that the current section is complete.
func (ps *patchParser) endSection() error {
	switch {
	case ps.cur == nil:
		return nil
	case ps.state == needValue:
		return ErrorAt(ps.cur.Line, "`new %s` needs its content on the next line: `type VALUE`", clip(ps.cur.Path))
	case ps.state == needOp && ps.cur.Path != "":
		return ErrorAt(ps.cur.Line, "`in %s` has no `type`, `add`, `mv` or `rm` line after it", clip(ps.cur.Path))
	case ps.state == needOp:
		return ErrorAt(ps.cur.Line, "`in` line has no `type` or `add` line after it")
	}
	return nil
}

func (ps *patchParser) end() error {
	if len(ps.p.Sections) == 0 {
		return ErrorAt(0, "empty edit; start with `in @shell/<id>` or `in PATH` and add `type`/`add` lines")
	}
	return ps.endSection()
}

// op parses a `type`/`add` line: an edit of the current section, or the
// content of a `new` file.
func (ps *patchParser) op(word, rest string) error {
	ln := ps.ln()
	switch {
	case ps.cur == nil:
		return ErrorAt(ln, "%q comes before any `in` line; start the edit with `in @shell/<id>` or `in PATH`", word)
	case ps.state == closed && ps.cur.Kind == SectionRemove:
		return ErrorAt(ln, "%q follows `rm`; a removed file takes no other edit", word)
	case ps.state == closed:
		return ErrorAt(ln, "%q follows the content of `new %s`; a new file is written whole by its one `type VALUE`", word, clip(ps.cur.Path))
	case ps.state == needValue && word == "type":
		v, err := ps.value(word, "", rest, false)
		if err != nil {
			return err
		}
		ps.cur.Content, ps.state = newFileContent(v.raw), closed
		return nil
	case ps.state == needValue:
		return ErrorAt(ln, "`new %s` takes `type VALUE` (the whole content), not `add`", clip(ps.cur.Path))
	}
	op, err := ps.parseOp(word, rest)
	if err != nil {
		return err
	}
	ps.cur.Ops = append(ps.cur.Ops, op)
	ps.state = openOps
	return nil
}

// newFileContent is the bytes a `new` file gets from its VALUE: rows, as
// apply_patch's Add File and editors write them, so a last row without a
// line ending gets one, the VALUE's own (LF unless its rows use CRLF or
// CR more: dominantEOL). Every other byte stays; an empty VALUE is an
// empty file.
func newFileContent(raw []byte) []byte {
	rs := rows.Split(raw)
	if len(rs) == 0 || len(rs[len(rs)-1].Term) > 0 {
		return raw
	}
	return append(raw[:len(raw):len(raw)], dominantEOL(rs)...)
}

// fileCommand parses `mv DEST` and `rm`, which follow `in PATH` directly.
func (ps *patchParser) fileCommand(word, rest string) error {
	ln := ps.ln()
	if ps.cur == nil || ps.cur.Path == "" || ps.cur.Kind != SectionEdit {
		what := "an `in PATH` line"
		if ps.cur != nil && ps.cur.Path == "" {
			what = "a workspace file; retained scripts are only edited"
		}
		return ErrorAt(ln, "`%s` needs %s", word, what)
	}
	if ps.state != needOp {
		return ErrorAt(ln, "`%s` must come right after `in %s`, before its edits", word, clip(ps.cur.Path))
	}
	if word == "rm" {
		if rest != "" {
			return ErrorAt(ln, "`rm` takes no argument; it removes the file of the `in` line")
		}
		ps.cur.Kind, ps.state = SectionRemove, closed
		return nil
	}
	if rest == "" {
		return ErrorAt(ln, "`mv` needs a destination: `mv PATH`")
	}
	dest, err := parsePath(rest)
	if err != nil {
		return ErrorAt(ln, "mv: %v", err)
	}
	ps.cur.Dest, ps.cur.DestLine, ps.state = dest, ln, openOps
	return nil
}

// parseIn checks the reference of an `in @shell/<id>` line.
func parseIn(ln int, ref string) (string, error) {
	if !strings.HasPrefix(ref, scriptref.RefPrefix) {
		return "", ErrorAt(ln, "%q is neither @shell/<id> nor a path; quote a path that starts with @ as a JSON string", clip(ref))
	}
	id, err := scriptref.ParseRef(ref)
	if err != nil {
		return "", WrapAt(ln, err)
	}
	return id, nil
}

// parsePath parses a workspace path: one word, or one JSON string.
func parsePath(s string) (string, error) {
	if s[0] == '@' {
		return "", fmt.Errorf("path %q starts with @ but is not @shell/<id>; quote a path that starts with @ as a JSON string", clip(s))
	}
	if s[0] != '"' {
		if strings.ContainsAny(s, " \t") {
			return "", fmt.Errorf("path %q has a blank; quote it as a JSON string", clip(s))
		}
		return s, nil
	}
	var p string
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		return "", fmt.Errorf("path %s is not one JSON string (%w)", clip(s), err)
	}
	if p == "" || strings.IndexByte(p, 0) >= 0 {
		return "", fmt.Errorf("path %s is empty or holds a NUL", clip(s))
	}
	return p, nil
}

// parsedValue is a VALUE: its rows, and for `new` its exact bytes.
type parsedValue struct {
	rows []string
	raw  []byte
}

// parseOp parses the `type`/`add` command on the current row and its
// VALUE, moving ps.i to the last row it consumed.
func (ps *patchParser) parseOp(word, rest string) (Op, error) {
	ln := ps.ln()
	op := Op{Kind: OpType, Line: ln}
	if word == "add" {
		op.Kind = OpAdd
	}
	target, value, err := cutTarget(rest)
	if err != nil {
		return op, ErrorAt(ln, "%s: %v", word, err)
	}
	if target == "" {
		return op, ErrorAt(ln, "%s needs a target and a VALUE, e.g. `%s 3:1a2b \"text\"`", word, word)
	}
	if op.From, op.To, err = parseTarget(target, op.Kind); err != nil {
		return op, ErrorAt(ln, "%s: %v", word, err)
	}
	v, err := ps.value(word, target, value, op.Kind == OpAdd)
	op.Value = v.rows
	return op, err
}

// value parses the VALUE of the current row: a JSON string or a heredoc
// whose lines follow; nonEmpty rejects a VALUE without rows (add).
func (ps *patchParser) value(word, target, value string, nonEmpty bool) (parsedValue, error) {
	ln := ps.ln()
	var v parsedValue
	switch {
	case value == "":
		return v, ErrorAt(ln, "%s has no VALUE; give a JSON string or <<%s", strings.TrimSpace(word+" "+target), heredocWord)
	case value == "<<"+heredocWord:
		end := ps.i + 1
		for ; end < len(ps.rows); end++ {
			if string(ps.rows[end].Text) == heredocWord {
				break
			}
		}
		if end == len(ps.rows) {
			return v, ErrorAt(ln, "heredoc has no closing line that is exactly %s", heredocWord)
		}
		for _, r := range ps.rows[ps.i+1 : end] {
			v.rows = append(v.rows, string(r.Text))
			v.raw = append(append(v.raw, r.Text...), r.Term...)
		}
		ps.i = end
	case value[0] == '"':
		var s string
		if err := json.Unmarshal([]byte(value), &s); err != nil {
			return v, ErrorAt(ln, "VALUE is not one JSON string (%v); quote it as JSON or use <<%s", err, heredocWord)
		}
		if strings.IndexByte(s, 0) >= 0 {
			return v, ErrorAt(ln, "VALUE contains a NUL character")
		}
		for _, r := range rows.Split([]byte(s)) {
			v.rows = append(v.rows, string(r.Text))
		}
		v.raw = []byte(s)
	default:
		return v, ErrorAt(ln, "VALUE must be a JSON string such as \"text\" or a <<%s heredoc, not %q", heredocWord, clip(value))
	}
	if nonEmpty && len(v.rows) == 0 {
		return v, ErrorAt(ln, "add inserts nothing; to insert an empty row use \"\\n\"")
	}
	return v, nil
}

// cutTarget splits the target (a word, or a JSON string with an optional
// COUNT) from the VALUE after it.
func cutTarget(s string) (target, value string, err error) {
	if s == "" || s[0] != '"' {
		target, value = cutSpace(s)
		return target, trimBlank(value), nil
	}
	end := jsonStringEnd(s)
	if end < 0 {
		return "", "", fmt.Errorf("text target %s has no closing quote", clip(s))
	}
	if end < len(s) && s[end] != ' ' && s[end] != '\t' {
		return "", "", fmt.Errorf("text target %s needs a blank after its closing quote", clip(s[:end]))
	}
	target, value = s[:end], trimBlank(s[end:])
	if value != "" && value[0] >= '0' && value[0] <= '9' {
		count, rest := cutSpace(value)
		target, value = target+" "+count, trimBlank(rest)
	}
	return target, value, nil
}

// jsonStringEnd is the index just past the JSON string s starts with, or
// -1 when it does not close.
func jsonStringEnd(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// parseTarget parses `L:HASH`, `L:HASH..L:HASH`, `"TEXT" [COUNT]`, or (for
// add) `EOF`.
func parseTarget(s string, kind OpKind) (from, to Pos, err error) {
	if s[0] == '"' {
		from, err = parseText(s)
		return from, from, err
	}
	if kind == OpAdd {
		if s == "EOF" {
			return Pos{EOF: true}, Pos{EOF: true}, nil
		}
		if strings.Contains(s, "..") {
			return from, to, fmt.Errorf("destination %q must be one row L:HASH, a text target or EOF, not a range", clip(s))
		}
	}
	a, b, isRange := strings.Cut(s, "..")
	if from, err = parsePos(a); err != nil {
		return from, to, err
	}
	if !isRange {
		return from, from, nil
	}
	to, err = parsePos(b)
	return from, to, err // the order of a range is verified by Apply
}

// parseText parses a text target: a non-empty JSON string, then
// optionally blanks and a COUNT from 1 to 999999999. One with a line break
// matches no row; resolution says so (citeTexts).
func parseText(s string) (Pos, error) {
	end := jsonStringEnd(s)
	var text string
	if err := json.Unmarshal([]byte(s[:end]), &text); err != nil {
		return Pos{}, fmt.Errorf("text target %s is not one JSON string (%w)", clip(s[:end]), err)
	}
	switch {
	case text == "":
		return Pos{}, fmt.Errorf("text target \"\" matches every row; cite rows as LINE:HASH instead")
	case strings.IndexByte(text, 0) >= 0:
		return Pos{}, fmt.Errorf("text target %s holds a NUL character", clip(s[:end]))
	}
	p := Pos{Text: text, Count: 1}
	if n := trimBlank(s[end:]); n != "" {
		c, err := strconv.Atoi(n)
		if err != nil || c < 1 || n[0] == '0' || len(n) > 9 {
			return Pos{}, fmt.Errorf("COUNT %q after a text target must be a number from 1 to 999999999", clip(n))
		}
		p.Count = c
	}
	return p, nil
}

// parsePos parses one `L:HASH` citation.
func parsePos(s string) (Pos, error) {
	l, h, ok := strings.Cut(s, ":")
	bad := func() (Pos, error) {
		return Pos{}, fmt.Errorf("target %q is not LINE:HASH (e.g. 12:0a9f, as hread shows) or \"TEXT\"", clip(s))
	}
	if !ok || l == "" || len(l) > 9 || l[0] == '0' || len(h) != 4 {
		return bad()
	}
	n := 0
	for _, c := range l {
		if c < '0' || c > '9' {
			return bad()
		}
		n = n*10 + int(c-'0')
	}
	for _, c := range h {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return bad()
		}
	}
	return Pos{Line: n, Hash: h}, nil
}

// trimBlank trims ASCII spaces and tabs, the only blanks the grammar
// allows around words (other white space is text).
func trimBlank(s string) string { return strings.Trim(s, " \t") }

// cutSpace splits s at its first space or tab.
func cutSpace(s string) (string, string) {
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}
