package shebang

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Linux bounds one argv string by MAX_ARG_STRLEN (131072 bytes including
// its NUL). Codex runs the carrier's cmd as one argument of `bash -lc`, and
// the worker receives each argv value as one argument of `shell`, so both
// must fit.
const (
	MaxArgBytes = 131071
	MaxArgv     = 256
)

// workerCommand renders `shell <argv…>` as one physical line: every value
// is quoted for Bash, so line terminators inside a body become $'…\n…'.
func workerCommand(argv []string) (string, error) {
	var b strings.Builder
	b.WriteString("shell")
	for _, v := range argv {
		q, err := quoteWord(v)
		if err != nil {
			return "", err
		}
		b.WriteByte(' ')
		b.WriteString(q)
	}
	return b.String(), nil
}

// quoteWord quotes v with syntax.Quote for Bash. One exception keeps bytes
// exact: Quote writes non-printable non-ASCII runes (e.g. U+200B) as
// \uXXXX inside $'…', which Bash expands only in a UTF-8 locale (in the C
// locale it keeps the six characters). Such runes are emitted as $'\xHH…'
// byte escapes concatenated to the neighbouring quoted parts instead, which
// Bash expands identically in every locale.
func quoteWord(v string) (string, error) {
	if !hasLocaleRune(v) {
		return quote(v)
	}
	var b strings.Builder
	start := 0
	for i, r := range v {
		if !localeRune(r) {
			continue
		}
		if start < i {
			q, err := quote(v[start:i])
			if err != nil {
				return "", err
			}
			b.WriteString(q)
		}
		b.WriteString("$'")
		for j := i; j < i+utf8.RuneLen(r); j++ {
			fmt.Fprintf(&b, `\x%02x`, v[j])
		}
		b.WriteByte('\'')
		start = i + utf8.RuneLen(r)
	}
	if start < len(v) {
		q, err := quote(v[start:])
		if err != nil {
			return "", err
		}
		b.WriteString(q)
	}
	return b.String(), nil
}

func quote(v string) (string, error) {
	q, err := syntax.Quote(v, syntax.LangBash)
	if err != nil {
		return "", diag(0, fmt.Sprintf("cannot quote an argv value for bash (%v); remove NUL bytes and invalid UTF-8", err))
	}
	return q, nil
}

func localeRune(r rune) bool {
	return r >= utf8.RuneSelf && r != utf8.RuneError && !unicode.IsPrint(r)
}

func hasLocaleRune(v string) bool {
	for _, r := range v {
		if localeRune(r) {
			return true
		}
	}
	return false
}

// checkArgv bounds the worker argv before anything is rendered.
func checkArgv(argv []string, bodyLine int) error {
	if len(argv) > MaxArgv {
		return diag(1, fmt.Sprintf("the shebang gives %d argv values, over the limit of %d; pass fewer interpreter arguments", len(argv), MaxArgv))
	}
	for i, v := range argv {
		if len(v) <= MaxArgBytes {
			continue
		}
		if i == len(argv)-1 {
			return diag(bodyLine, fmt.Sprintf("the script body is %d bytes, over the %d-byte argv limit; shorten it or split it into several calls", len(v), MaxArgBytes))
		}
		return diag(1, fmt.Sprintf("shebang field %d is %d bytes, over the %d-byte argv limit", i+1, len(v), MaxArgBytes))
	}
	return nil
}

// checkCmd bounds the rendered command: Codex passes it as one argv string.
func checkCmd(cmd string) error {
	if len(cmd) > MaxArgBytes {
		return diag(0, fmt.Sprintf("the translated command is %d bytes after quoting, over the %d-byte argv limit; shorten the script or split it into several calls", len(cmd), MaxArgBytes))
	}
	return nil
}
