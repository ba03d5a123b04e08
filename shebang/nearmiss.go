package shebang

import (
	"fmt"
	"strings"
)

// nearMiss is a #!cmd= or #!params= directive spelled slightly wrong
// (issue 25): a blank or ':' instead of '=' after the key, the '#' left
// out ("!params {…}"), or a comment-shaped "# !cmd=". REQ-SHELL-001
// tolerates "#!params JSON" and "# !params JSON"; these are their
// siblings. When the value shows the intent — a template holding {.}, a
// JSON object for params — the line is read as the directive, with a
// note. Otherwise it is refused with a line that names the directive,
// except the comment-shaped form, which stays the comment it is.
type nearMiss struct {
	kind    int    // dirCmd or dirParams
	key     string // "cmd" or "params"
	value   string // the template or JSON text, trimmed
	certain bool   // the value shows the intent
	line    int    // set by the caller
}

// isNearMiss reports a first line that must not be read as a shebang
// because it is a directive spelled slightly wrong.
func isNearMiss(t string) bool {
	_, ok := nearMissDirective(t)
	return ok
}

// nearMissDirective recognizes a near-miss spelling in a trimmed line of
// the leading block; canonical and tolerated spellings are not near
// misses (classifyDirective reads them).
func nearMissDirective(t string) (nearMiss, bool) {
	if kind, _, _ := classifyDirective(t); kind == dirCmd || kind == dirParams || kind == dirScript {
		return nearMiss{}, false
	}
	rest, comment := "", false
	switch {
	case strings.HasPrefix(t, "#!"):
		rest = t[2:]
	case strings.HasPrefix(t, "!"):
		rest = t[1:]
	case strings.HasPrefix(t, "#"):
		r := strings.TrimLeft(t[1:], " \t")
		if len(r) == len(t)-1 || !strings.HasPrefix(r, "!") {
			return nearMiss{}, false
		}
		rest, comment = r[1:], true
	default:
		return nearMiss{}, false
	}
	nm := nearMiss{kind: dirCmd, key: "cmd"}
	if strings.HasPrefix(rest, "params") {
		nm.kind, nm.key = dirParams, "params"
	}
	v, ok := strings.CutPrefix(rest, nm.key)
	if !ok || v != "" && !strings.ContainsRune("=: \t", rune(v[0])) {
		return nearMiss{}, false
	}
	if v != "" {
		v = v[1:]
	}
	nm.value = trimBlank(v)
	switch nm.kind {
	case dirCmd:
		nm.certain = strings.Contains(nm.value, "{.}")
	case dirParams:
		nm.certain = strings.HasPrefix(nm.value, "{")
	}
	if comment && !nm.certain {
		return nearMiss{}, false
	}
	return nm, true
}

// diag is the refusal of a near miss whose value does not show the
// intent: it names the directive and shows its form.
func (nm nearMiss) diag(line int) *Diagnostic {
	if nm.kind == dirParams {
		return habitDiag(HabitDirective, line, `this looks like a #!params= directive spelled wrong; write #!params= and a JSON object, e.g. #!params={"workdir":"/tmp"}`)
	}
	return habitDiag(HabitDirective, line, "this looks like a #!cmd= directive spelled wrong; write #!cmd= and a command with {.} once where the script goes, e.g. #!cmd=curl -fsSL URL | {.}")
}

// nearMissNotes are the notes for near misses read as directives; they
// name the line and the directive, never the value (notes reach the
// dashboard).
func nearMissNotes(list []nearMiss) []string {
	out := make([]string, 0, len(list))
	for _, nm := range list {
		out = append(out, fmt.Sprintf("shell: note: line %d was read as the #!%s= directive; write directives as #!key=value.", nm.line, nm.key))
	}
	return out
}
