package request

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"hpatch-router/workspace"
)

// Codex's environment_context item (FACTS §2.2; every capture and Codex
// 0.169.0 checked): a message of role user whose one content item is
// input_text and is the whole element, from the open tag to the close tag.
// Text a user or a tool pasted, an environment_context block inside a
// longer message or output, is not Codex's and never says where the turn
// runs: it would let a pasted log widen what hpatch may write.
const (
	envContextOpen  = "<environment_context>"
	envContextClose = "</environment_context>"
)

// codexEnvContext returns the text of item when it is Codex's own
// environment_context item.
func codexEnvContext(item gjson.Result) (string, bool) {
	if item.Get("role").String() != "user" {
		return "", false
	}
	var part gjson.Result
	n := 0
	item.Get("content").ForEach(func(_, c gjson.Result) bool {
		part, n = c, n+1
		return n < 2
	})
	if n != 1 || part.Get("type").String() != "input_text" {
		return "", false
	}
	text := part.Get("text").String()
	if !strings.HasPrefix(text, envContextOpen) || !strings.HasSuffix(strings.TrimRight(text, " \t\r\n"), envContextClose) {
		return "", false
	}
	return text, true
}

// parseEnvContext reads the cwd and the workspace roots of Codex's
// environment_context text. Codex escapes <, >, &, ' and " in the values
// it writes (a path holding them, checked with Codex 0.169.0), so the
// first tag of a name is the real one; values are decoded as XML
// character data (unescapeXML). Codex writes other characters, control
// characters included, as they are, which an XML decoder would refuse.
func parseEnvContext(text string) workspace.Env {
	var env workspace.Env
	if text == "" {
		return env
	}
	if cwd, ok := between(text, "<cwd>", "</cwd>"); ok {
		env.Cwd = unescapeXML(cwd)
	}
	roots, _ := between(text, "<workspace_roots>", "</workspace_roots>")
	for {
		r, ok := between(roots, "<root>", "</root>")
		if !ok {
			break
		}
		env.Roots = append(env.Roots, unescapeXML(r))
		roots = roots[strings.Index(roots, "</root>")+len("</root>"):]
	}
	return env
}

// between is the text of s between the first open and the close after
// it.
func between(s, open, close string) (string, bool) {
	_, after, ok := strings.Cut(s, open)
	if !ok {
		return "", false
	}
	in, _, ok := strings.Cut(after, close)
	return in, ok
}

// unescapeXML decodes the references of XML character data: the five
// predefined entities (&lt; &gt; &amp; &apos; &quot;) and character
// references, decimal (&#47;) and hexadecimal (&#x2F;). A reference must
// end with ';' and name a character XML allows; anything else (an HTML
// entity such as &nbsp;, a bare &) is kept as it is written. Each
// reference is decoded once: &amp;#38; is "&#38;".
func unescapeXML(s string) string {
	amp := strings.IndexByte(s, '&')
	if amp < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for amp >= 0 {
		b.WriteString(s[:amp])
		s = s[amp:]
		if r, n := xmlReference(s); n > 0 {
			b.WriteRune(r)
			s = s[n:]
		} else {
			b.WriteByte('&')
			s = s[1:]
		}
		amp = strings.IndexByte(s, '&')
	}
	b.WriteString(s)
	return b.String()
}

// xmlReference decodes the reference at the start of s ("&...;") and
// returns its character and length, or n == 0 when s does not start with
// one.
func xmlReference(s string) (r rune, n int) {
	end := strings.IndexByte(s, ';')
	if end < 2 || end > len("&#x10FFFF;") {
		return 0, 0
	}
	name := s[1:end]
	switch name {
	case "lt":
		return '<', end + 1
	case "gt":
		return '>', end + 1
	case "amp":
		return '&', end + 1
	case "apos":
		return '\'', end + 1
	case "quot":
		return '"', end + 1
	}
	digits, ok := strings.CutPrefix(name, "#")
	if !ok || digits == "" {
		return 0, 0
	}
	base := 10
	if hex, ok := strings.CutPrefix(digits, "x"); ok {
		digits, base = hex, 16
	}
	v, err := strconv.ParseUint(digits, base, 32)
	if err != nil || !xmlChar(rune(v)) {
		return 0, 0
	}
	return rune(v), end + 1
}

// xmlChar reports a character XML 1.0 allows in a document (its Char
// production): a reference to any other, such as &#0;, is no character.
func xmlChar(r rune) bool {
	switch {
	case r == 0x9 || r == 0xA || r == 0xD:
		return true
	case r >= 0x20 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD:
		return true
	case r >= 0x10000 && r <= utf8.MaxRune:
		return true
	}
	return false
}
