package shebang

import (
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The recovery rules of A16 and DESIGN §9 concern JavaScript on the wrong
// tool: Code Mode JavaScript sent to `shell` runs as the exec carrier it
// already is, and an `exec` call that calls tools.exec_command directly gets
// a pointer to `shell`. Both only add notices; the script runs unchanged.

// recoveryNotice and execNotice are printed by text(...) in the carrier.
const (
	recoveryNotice = "shell: note: this input is Code Mode JavaScript, so it ran unchanged as an exec call; send JavaScript to exec, and programs to shell as plain text (e.g. #!python3)."
	execNotice     = "exec: note: tools.exec_command is available through the shell tool: send the program itself (e.g. #!python3 or a bash script) with no JavaScript or quoting."
)

// toolCall matches `await tools.name(` and `await tools["name"](`.
func toolCall() *regexp.Regexp {
	return regexp.MustCompile(`\bawait\s+tools\s*(?:\.\s*[A-Za-z_$][\w$]*|\[\s*["'][^"'\r\n]+["']\s*\])\s*\(`)
}

// isCodeModeJS reports shell input that is really Code Mode JavaScript: an
// awaited nested tool call plus a projection through text(...) or
// JSON.stringify. A bash script with both shapes is not plausible.
func isCodeModeJS(input string) bool {
	if !strings.Contains(input, "tools") || !toolCall().MatchString(input) {
		return false
	}
	return regexp.MustCompile(`\b(?:text|image|JSON\.stringify)\s*\(`).MatchString(input)
}

// jsWarnings are the shell warnings of the command strings inside
// recovered JavaScript: every string literal is decoded and scanned as Bash.
func jsWarnings(js string) []string {
	var out []string
	for _, lit := range jsStrings(js) {
		for _, w := range shellWarnings(lit, syntax.LangBash) {
			if !containsString(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// jsStrings extracts the string and template literals of a JavaScript text
// with the common escapes decoded. It is a scanner for warnings, not a JS
// parser: comments are skipped, regular expressions are not recognized.
func jsStrings(js string) []string {
	var out []string
	for i := 0; i < len(js); i++ {
		c := js[i]
		switch {
		case c == '/' && i+1 < len(js) && js[i+1] == '/':
			for i < len(js) && js[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(js) && js[i+1] == '*':
			end := strings.Index(js[i+2:], "*/")
			if end < 0 {
				return out
			}
			i += end + 3
		case c == '"' || c == '\'' || c == '`':
			var b strings.Builder
			j := i + 1
			for ; j < len(js) && js[j] != c; j++ {
				if js[j] == '\\' && j+1 < len(js) {
					j++
					b.WriteString(jsEscape(js[j]))
					continue
				}
				b.WriteByte(js[j])
			}
			out = append(out, b.String())
			i = j
		}
	}
	return out
}

func jsEscape(c byte) string {
	switch c {
	case 'n':
		return "\n"
	case 't':
		return "\t"
	case 'r':
		return "\r"
	}
	return string(c)
}

// AnnotateExec adds one notice to a model `exec` call whose JavaScript
// calls tools.exec_command directly, pointing the model to `shell`. The
// script itself is unchanged; a first-line `// @exec:` pragma stays first
// because Codex reads it only there. Annotated input is returned as is with
// changed=false, so replaying a call never stacks notices.
func AnnotateExec(js string) (out string, changed bool) {
	stmt := textStatement(execNotice)
	if strings.Contains(js, stmt) {
		return js, false
	}
	if !regexp.MustCompile(`\btools\s*(?:\.\s*exec_command|\[\s*["']exec_command["']\s*\])\s*\(`).MatchString(js) {
		return js, false
	}
	return insertAfterPragma(js, stmt+"\n"), true
}

// insertAfterPragma inserts text at the top of a script, after a first-line
// `// @exec:` pragma when there is one.
func insertAfterPragma(js, text string) string {
	first, next := nextLine(js, 0)
	if !strings.HasPrefix(trimBlank(first), "// @exec:") {
		return text + js
	}
	if next == len(first) { // pragma without a terminator
		return js + "\n" + text
	}
	return js[:next] + text + js[next:]
}
