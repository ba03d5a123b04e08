package shebang

import (
	"fmt"
	"hpatch-router/rows"
	"strings"
)

// header is what precedes the body: the optional interpreter shebang and the
// leading directive block. Everything after it is the body, byte for byte.
type header struct {
	fields     []string // normalized interpreter fields; nil = implicit bash
	hasCmd     bool
	cmd        string // #!cmd= template, trimmed
	cmdLine    int
	hasParams  bool
	params     string // #!params JSON text, trimmed
	paramsLine int
	bodyStart  int // byte offset of the body in the input
	bodyLine   int // line number of the body's first line
	// nearMiss holds the directives spelled slightly wrong that were read
	// as what they meant (issue 25), for the notes.
	nearMiss []nearMiss
}

// directive kinds found in the leading block.
const (
	dirNone = iota
	dirCmd
	dirParams
	dirScript
	dirUnknown
)

// classifyDirective recognizes a trimmed line of the leading directive
// block. Canonical directives are #!key=value; for params the spellings
// "#!params JSON" and "# !params JSON" (also "# !params=JSON") are
// tolerated because models write them. Any other "#!" line in the block is
// an unsupported directive: a shebang is only valid on the first line.
func classifyDirective(t string) (kind int, key, value string) {
	if rest, ok := strings.CutPrefix(t, "#"); ok && !strings.HasPrefix(rest, "!") {
		// "# !params": a comment-shaped params line, tolerated.
		r := strings.TrimLeft(rest, " \t")
		if len(r) < len(rest) && strings.HasPrefix(r, "!") {
			if v, ok := paramsValue(r[1:]); ok {
				return dirParams, "params", v
			}
		}
		return dirNone, "", ""
	}
	rest, ok := strings.CutPrefix(t, "#!")
	if !ok {
		return dirNone, "", ""
	}
	if v, ok := paramsValue(rest); ok {
		return dirParams, "params", v
	}
	key, value, ok = cutKey(rest)
	if !ok {
		return dirUnknown, "", ""
	}
	switch key {
	case "cmd":
		return dirCmd, key, trimBlank(value)
	case "script":
		return dirScript, key, trimBlank(value)
	}
	return dirUnknown, key, value
}

// paramsValue accepts "params=JSON" and "params JSON" (the caller removed
// the "#!" or "# !") and returns the trimmed JSON text.
func paramsValue(s string) (string, bool) {
	rest, ok := strings.CutPrefix(s, "params")
	if !ok {
		return "", false
	}
	if v, ok := strings.CutPrefix(rest, "="); ok {
		return trimBlank(v), true
	}
	if rest == "" || rest[0] == ' ' || rest[0] == '\t' {
		v := trimBlank(rest)
		v = trimBlank(strings.TrimPrefix(v, "="))
		return v, true
	}
	return "", false
}

// cutKey splits "key=value" where key is an identifier, the shape of every
// canonical directive.
func cutKey(s string) (key, value string, ok bool) {
	i := strings.IndexByte(s, '=')
	if i <= 0 {
		return "", "", false
	}
	for j := 0; j < i; j++ {
		c := s[j]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (j == 0 || !(c >= '0' && c <= '9' || c == '_' || c == '-')) {
			return "", "", false
		}
	}
	return s[:i], s[i+1:], true
}

// byteOrderMark is U+FEFF in UTF-8. Editors put it at the start of files,
// and a model that copies one writes it too; it is invisible in the input.
const byteOrderMark = "\uFEFF"

// headerStart is where the first line is read: after a byte order mark
// that is followed by a shebang or a leading directive, else at 0. Such a
// mark is part of the first line, which never reaches the body, so
// ignoring it changes no byte of the body; the retained input and the
// replayed call still hold it as the model wrote it, and a rerun reads it
// the same way. A mark before anything else is body text (see bomWarning).
func headerStart(input string) int {
	rest, ok := strings.CutPrefix(input, byteOrderMark)
	if !ok {
		return 0
	}
	first, _, _ := rows.Cut(rest)
	t := trimBlank(first)
	if kind, _, _ := classifyDirective(t); kind != dirNone || strings.HasPrefix(t, "#!") {
		return len(byteOrderMark)
	}
	return 0
}

// parseHeader reads the optional shebang and the leading directive block.
func parseHeader(input string) (*header, error) {
	h := &header{}
	off, num := headerStart(input), 1
	if input == "" {
		h.bodyLine = 1
		return h, nil
	}
	text, _, after := rows.Cut(input[off:])
	next := len(input) - len(after)
	t := trimBlank(text)
	if kind, _, _ := classifyDirective(t); kind == dirUnknown && !isDirectiveShaped(t) && !isNearMiss(t) {
		f, err := parseSelector(t[2:])
		if err != nil {
			return nil, err
		}
		h.fields = f
		off, num = next, 2
	}
	for off < len(input) {
		text, _, after := rows.Cut(input[off:])
		next := len(input) - len(after)
		t := trimBlank(text)
		kind, key, value := classifyDirective(t)
		if nm, ok := nearMissDirective(t); ok {
			if !nm.certain {
				return nil, nm.diag(num)
			}
			nm.line = num
			h.nearMiss = append(h.nearMiss, nm)
			kind, key, value = nm.kind, nm.key, nm.value
		}
		switch kind {
		case dirNone:
			h.bodyStart, h.bodyLine = off, num
			return h, nil
		case dirCmd:
			if h.hasCmd {
				return nil, diag(num, fmt.Sprintf("duplicate #!cmd= directive (first on line %d); keep one", h.cmdLine))
			}
			if value == "" {
				return nil, diag(num, "empty #!cmd= template; write a command containing {.} once, e.g. #!cmd=curl -fsSL URL | {.}")
			}
			h.hasCmd, h.cmd, h.cmdLine = true, value, num
		case dirParams:
			if h.hasParams {
				return nil, diag(num, fmt.Sprintf("duplicate #!params directive (first on line %d); merge them into one JSON object", h.paramsLine))
			}
			h.hasParams, h.params, h.paramsLine = true, value, num
		case dirScript:
			return nil, diag(num, "#!script=@shell/<id> must be the whole input; send it alone to rerun a retained script")
		default:
			if key != "" {
				return nil, diag(num, fmt.Sprintf("unsupported directive #!%s=; the leading block accepts #!cmd= and #!params= only", key))
			}
			return nil, diag(num, "a shebang must be the first line; only #!cmd= and #!params= may follow it")
		}
		off, num = next, num+1
	}
	h.bodyStart, h.bodyLine = len(input), num
	return h, nil
}

// isDirectiveShaped reports a first line "#!key=value" with an identifier
// key: that is a (possibly unsupported) directive, not an interpreter path.
func isDirectiveShaped(t string) bool {
	_, _, ok := cutKey(strings.TrimPrefix(t, "#!"))
	return ok
}

// parseSelector turns the text after "#!" into interpreter fields:
// trimmed, split at spaces/tabs, a leading env or /usr/bin/env and an
// optional -S removed, and a bash/sh basename (any case, optional .exe)
// normalized to "bash"/"sh" because the worker evaluates those with mvdan/sh
// whatever path named them. Other selectors stay as written: bare names
// resolve through PATH when the worker runs, paths are used unchanged.
func parseSelector(sel string) ([]string, error) {
	return selectorFields(fields(sel))
}

// selectorFields applies the selector rules of parseSelector to fields
// already split (a shebang line's, or a tool's run list). f is modified.
func selectorFields(f []string) ([]string, error) {
	if len(f) == 0 {
		return nil, diag(1, "empty shebang selector; name an interpreter (e.g. #!python3) or drop the #! line to use bash")
	}
	env := false
	if f[0] == "env" || f[0] == "/usr/bin/env" {
		env = true
		f = f[1:]
		if len(f) > 0 && f[0] == "-S" {
			f = f[1:]
		}
		if len(f) == 0 {
			return nil, diag(1, "env selector names no executable; write e.g. #!/usr/bin/env python3")
		}
	}
	switch {
	case env && (strings.HasPrefix(f[0], "-") || strings.Contains(f[0], "=")):
		return nil, diag(1, fmt.Sprintf("env option or assignment %q is not supported in a shebang; name the executable right after env (only -S is accepted)", f[0]))
	case strings.HasPrefix(f[0], "-"):
		return nil, diag(1, fmt.Sprintf("shebang selector starts with the option %q; name the interpreter first", f[0]))
	}
	if fam := shellFamily(f[0]); fam != "" {
		f[0] = fam
	}
	return f, nil
}

// shellFamily is "bash" or "sh" when the case-insensitive basename of name
// is bash, bash.exe, sh or sh.exe, and "" otherwise.
func shellFamily(name string) string {
	base := name[strings.LastIndexAny(name, `/\`)+1:]
	base = strings.ToLower(base)
	base = strings.TrimSuffix(base, ".exe")
	if base == "bash" || base == "sh" {
		return base
	}
	return ""
}

// bodyHeaderWarnings notes what looks like a header but is body text
// (REQ-SHELL-001: after the first body line, directive-like lines are body
// data). They name lines and kinds, never the text, because warnings reach
// the dashboard. interp is the interpreter the body runs with.
//
//   - A `#!` line (shebang or directive) that follows only blank lines at
//     the start of the body: the blank line ended the leading block, so the
//     model's directive or interpreter choice did nothing.
//   - A byte order mark that starts a Bash or sh body: it is glued to the
//     first word. Before a shebang or directive it is ignored instead
//     (headerStart).
func bodyHeaderWarnings(input string, h *header, interp string) []string {
	var out []string
	body := input[h.bodyStart:]
	if strings.HasPrefix(body, byteOrderMark) && (interp == "bash" || interp == "sh") {
		out = append(out, "shell: note: the input starts with a UTF-8 byte order mark (U+FEFF), which "+interp+" reads as part of the first command; remove it.")
	}
	off, num := h.bodyStart, h.bodyLine
	for off < len(input) {
		text, _, after := rows.Cut(input[off:])
		next := len(input) - len(after)
		t := trimBlank(strings.TrimPrefix(text, byteOrderMark))
		kind, key, _ := classifyDirective(t)
		switch {
		case t == "":
		case kind == dirScript:
			out = append(out, fmt.Sprintf("shell: note: line %d looks like a #!script rerun but is script text: a rerun is an input of that one line alone, with no blank line before it.", num))
		case kind == dirCmd || kind == dirParams || key != "":
			out = append(out, fmt.Sprintf("shell: note: line %d looks like a #!%s directive but is script text: directives count only in the block right after the first line, with no blank line before them.", num, key))
		case strings.HasPrefix(t, "#!"):
			out = append(out, fmt.Sprintf("shell: note: line %d looks like a shebang but is script text: only the first line selects the interpreter, so the input runs as %s.", num, interp))
		default:
			return out
		}
		off, num = next, num+1
	}
	return out
}

// trimBlank trims only ASCII spaces and tabs, the one trimming the
// requirement allows around shebang and directive lines.
func trimBlank(s string) string { return strings.Trim(s, " \t") }

// fields splits at runs of ASCII spaces and tabs.
func fields(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' })
}
