package retain

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"hpatch-router/shebang"
)

// Patch is a parsed hpatch edit: one section per retained script, in the
// order of their first `in` line. Several `in` lines for the same script
// are merged into one section, so all its edits share one baseline.
type Patch struct {
	Sections []*Section
}

// Section holds the edits of one script.
type Section struct {
	ID   string // artifact id
	Line int    // input line of its first `in`
	Ops  []Op
}

// OpKind tells `type` from `add`.
type OpKind int

const (
	OpType OpKind = iota + 1 // replace the targeted rows
	OpAdd                    // insert before a row, or at EOF
)

// Op is one `type` or `add` line.
type Op struct {
	Kind OpKind
	Line int // input line of the command
	From Pos // first targeted row, or the insertion point of add
	To   Pos // last targeted row (== From for a single row and for add)
	// Value is the lines of VALUE without terminators; empty means delete
	// for type (add rejects it at parse time).
	Value []string
}

// Pos is a cited row `L:HASH`, or EOF for `add EOF`.
type Pos struct {
	Line int
	Hash string
	EOF  bool
}

func (p Pos) String() string {
	if p.EOF {
		return "EOF"
	}
	return strconv.Itoa(p.Line) + ":" + p.Hash
}

// PatchError is a rejected hpatch edit; Line is the input line (0 when
// the whole input is at fault). Its message is one line without a tool
// prefix (the router adds "hpatch: "). Err is the underlying error when
// there is one (a *shebang.RefError, a store error), for errors.Is/As.
type PatchError struct {
	Line int
	Msg  string
	Err  error
}

func (e *PatchError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

func (e *PatchError) Unwrap() error { return e.Err }

func errAt(line int, format string, args ...any) error {
	return &PatchError{Line: line, Msg: fmt.Sprintf(format, args...)}
}

// wrapAt is a PatchError at line that carries err.
func wrapAt(line int, err error) error {
	return &PatchError{Line: line, Msg: err.Error(), Err: err}
}

// heredocWord opens and closes a raw VALUE.
const heredocWord = "PATCH"

// ParsePatch parses hpatch input. It checks syntax — exactly the language
// of the Lark grammar the `hpatch` tool declares (plugins/hpatch.lark, kept
// in step by grammar_test.go) — and each id against the artifact id rule
// (shebang.ParseRef), which the grammar leaves to the store; Apply verifies
// the targets against the scripts.
func ParsePatch(text string) (*Patch, error) {
	if !utf8.ValidString(text) {
		return nil, errAt(0, "edit is not valid UTF-8")
	}
	if strings.IndexByte(text, 0) >= 0 {
		return nil, errAt(0, "edit contains a NUL byte")
	}
	rows := Rows([]byte(text))
	p := &Patch{}
	byID := map[string]*Section{}
	var cur *Section
	inLine, ops := 0, 0 // the last `in` line, and the operations after it
	for i := 0; i < len(rows); i++ {
		ln := i + 1
		line := trimBlank(string(rows[i].Text))
		if line == "" {
			continue
		}
		word, rest := cutSpace(line)
		switch word {
		case "in":
			if inLine > 0 && ops == 0 {
				return nil, errAt(inLine, "`in` line has no `type` or `add` line after it")
			}
			id, err := parseIn(ln, trimBlank(rest))
			if err != nil {
				return nil, err
			}
			inLine, ops = ln, 0
			if cur = byID[id]; cur == nil {
				cur = &Section{ID: id, Line: ln}
				byID[id] = cur
				p.Sections = append(p.Sections, cur)
			}
		case "type", "add":
			if cur == nil {
				return nil, errAt(ln, "%q comes before any `in @shell/<id>` line; start the edit with `in @shell/<id>`", word)
			}
			op, next, err := parseOp(rows, i, word, rest)
			if err != nil {
				return nil, err
			}
			cur.Ops = append(cur.Ops, op)
			ops++
			i = next
		default:
			return nil, errAt(ln, "unknown command %q; lines are `in @shell/<id>`, `type TARGET VALUE` or `add DEST VALUE`", clip(word))
		}
	}
	if len(p.Sections) == 0 {
		return nil, errAt(0, "empty edit; start with `in @shell/<id>` and add `type`/`add` lines")
	}
	if ops == 0 {
		return nil, errAt(inLine, "`in` line has no `type` or `add` line after it")
	}
	return p, nil
}

// trimBlank trims ASCII spaces and tabs, the only blanks the grammar
// allows around words (other white space is text).
func trimBlank(s string) string { return strings.Trim(s, " \t") }

// parseIn checks the reference of an `in` line.
func parseIn(ln int, ref string) (string, error) {
	switch {
	case ref == "":
		return "", errAt(ln, "`in` needs a retained script reference: `in @shell/<id>`")
	case !strings.HasPrefix(ref, shebang.RefPrefix):
		return "", errAt(ln, "%q is not a retained script; hpatch edits only retained @shell/<id> scripts, use apply_patch or the shell for workspace files", clip(ref))
	}
	id, err := shebang.ParseRef(ref)
	if err != nil {
		return "", wrapAt(ln, err)
	}
	return id, nil
}

// parseOp parses the `type`/`add` command on rows[i] and its VALUE, and
// returns the index of the last row it consumed.
func parseOp(rows []Row, i int, word, rest string) (Op, int, error) {
	ln := i + 1
	op := Op{Kind: OpType, Line: ln}
	if word == "add" {
		op.Kind = OpAdd
	}
	target, value := cutSpace(trimBlank(rest))
	if target == "" {
		return op, i, errAt(ln, "%s needs a target and a VALUE, e.g. `%s 3:1a2b \"text\"`", word, word)
	}
	var err error
	if op.From, op.To, err = parseTarget(target, op.Kind); err != nil {
		return op, i, errAt(ln, "%s: %v", word, err)
	}
	value = trimBlank(value)
	switch {
	case value == "":
		return op, i, errAt(ln, "%s %s has no VALUE; give a JSON string or <<%s", word, target, heredocWord)
	case value == "<<"+heredocWord:
		end := i + 1
		for ; end < len(rows); end++ {
			if string(rows[end].Text) == heredocWord {
				break
			}
		}
		if end == len(rows) {
			return op, i, errAt(ln, "heredoc has no closing line that is exactly %s", heredocWord)
		}
		for _, r := range rows[i+1 : end] {
			op.Value = append(op.Value, string(r.Text))
		}
		i = end
	case value[0] == '"':
		var s string
		if err := json.Unmarshal([]byte(value), &s); err != nil {
			return op, i, errAt(ln, "VALUE is not one JSON string (%v); quote it as JSON or use <<%s", err, heredocWord)
		}
		if strings.IndexByte(s, 0) >= 0 {
			return op, i, errAt(ln, "VALUE contains a NUL character")
		}
		for _, r := range Rows([]byte(s)) {
			op.Value = append(op.Value, string(r.Text))
		}
	default:
		return op, i, errAt(ln, "VALUE must be a JSON string such as \"text\" or a <<%s heredoc, not %q", heredocWord, clip(value))
	}
	if op.Kind == OpAdd && len(op.Value) == 0 {
		return op, i, errAt(ln, "add inserts nothing; to insert an empty row use \"\\n\"")
	}
	return op, i, nil
}

// parseTarget parses `L:HASH`, `L:HASH..L:HASH`, or (for add) `EOF`.
func parseTarget(s string, kind OpKind) (from, to Pos, err error) {
	if kind == OpAdd {
		if s == "EOF" {
			return Pos{EOF: true}, Pos{EOF: true}, nil
		}
		if strings.Contains(s, "..") {
			return from, to, fmt.Errorf("destination %q must be one row L:HASH or EOF, not a range", clip(s))
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

// parsePos parses one `L:HASH` citation.
func parsePos(s string) (Pos, error) {
	l, h, ok := strings.Cut(s, ":")
	bad := func() (Pos, error) {
		return Pos{}, fmt.Errorf("target %q is not LINE:HASH (e.g. 12:0a9f, as hread shows)", clip(s))
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

// cutSpace splits s at its first space or tab.
func cutSpace(s string) (string, string) {
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}
