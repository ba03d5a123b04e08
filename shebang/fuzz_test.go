package shebang

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"hpatch-router/shebang/oneline"
)

func fuzzSeeds(f *testing.F) {
	for _, s := range []string{
		"", "#!", "#!python3\nprint(1)\n", "#!/usr/bin/env -S python3 -u\r\nx\r\n", " #!sh \rls",
		"#!cmd=curl URL | {.} | jq\necho hi\n", "#!params={\"workdir\":\"/tmp\",\"tty\":true}\n#!cmd={.}\nls",
		"# !params {\"login\":false}\nls", "rtk shadowtree test . -run='^$'\n", "echo hi", "ls &", "$(pwd)",
		"#!sh\na=(1)\n", "#!script=@shell/x", "await tools.exec_command({cmd:'ls'}); text(1)", "a\x00b", "\xff",
		"python3 -c 1\ncat <<EOF\nx\nEOF\n",
		"\uFEFF#!python3\nprint(1)\n", "\uFEFFls\n", "#!python3\n\n#!params={\"workdir\":\"/tmp\"}\n", "\n#!python3\n",
	} {
		f.Add(s)
	}
	for _, c := range habitCases {
		f.Add(c.in)
	}
	for _, s := range lookAlikes {
		f.Add(s)
	}
}

// FuzzTranslate: the parser never panics; an accepted input's body is a
// byte-exact suffix of the input, its argv ends with that body, its cmd is
// one physical line within the argv limit, and its carrier renders.
func FuzzTranslate(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		p, err := Translate(in, Options{})
		if err != nil {
			if _, ok := err.(*Diagnostic); !ok {
				t.Fatalf("error %T is not a *Diagnostic: %v", err, err)
			}
			if msg := err.Error(); strings.ContainsAny(msg, "\r\n") || strings.HasPrefix(msg, "shell:") {
				t.Fatalf("diagnostic is not one line without a prefix: %q", msg)
			}
			return
		}
		if !utf8.ValidString(in) || strings.IndexByte(in, 0) >= 0 {
			t.Fatalf("accepted %q, which no argv can carry", in)
		}
		if p.Kind == KindRecovered {
			// A recovered program is a part of the input (a fence's
			// lines, the text after blank lines, commands without their
			// $ prompts), never something else.
			if !partOfInput(in, p.Body) {
				t.Fatalf("recovered %q with body %q that is not part of it", in, p.Body)
			}
			if p.Script == "" && (strings.ContainsAny(p.Cmd, "\r\n") || len(p.Cmd) > MaxArgBytes) {
				t.Fatalf("cmd %q is not one bounded physical line", p.Cmd)
			}
			return
		}
		if !strings.HasSuffix(in, p.Body) {
			t.Fatalf("accepted %q with body %q that is not a suffix", in, p.Body)
		}
		if p.Kind != KindDirect && (len(p.Argv) == 0 || p.Argv[len(p.Argv)-1] != p.Body) {
			t.Fatalf("argv %q does not end with the body %q", p.Argv, p.Body)
		}
		if strings.ContainsAny(p.Cmd, "\r\n") || len(p.Cmd) > MaxArgBytes {
			t.Fatalf("cmd %q is not one bounded physical line", p.Cmd)
		}
		_ = p.Carrier(Retention{Retained: true, ScriptRef: "@shell/x"})
	})
}

// FuzzDirect: direct eligibility never panics, and a direct command is the
// body with at most one final line terminator removed.
func FuzzDirect(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, body string) {
		cmd, ok := directCommand(body)
		if !ok {
			return
		}
		term, isPrefix := strings.CutPrefix(body, cmd)
		if !isPrefix || !slices.Contains([]string{"", "\n", "\r\n", "\r"}, term) || strings.ContainsAny(cmd, "\r\n") || strings.HasSuffix(cmd, "\\") {
			t.Fatalf("direct %q from body %q changed more than one final terminator", cmd, body)
		}
	})
}

// FuzzQuote: whatever the body, the worker command is one physical line
// and the helper's reading of it gives the body back (the shells' reading
// is proven in semantic_test.go).
func FuzzQuote(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, v string) {
		q, err := workerCommand([]string{"python3", "-u"}, v)
		if err != nil {
			t.Fatalf("workerCommand(%q): %v", v, err)
		}
		if strings.ContainsAny(q, "\r\n") {
			t.Fatalf("command for %q spans lines: %q", v, q)
		}
		if !utf8.ValidString(v) {
			return // Translate rejects it before rendering
		}
		if escaped := strings.HasPrefix(q, "shell -e "); escaped == oneline.Showable(v) {
			t.Fatalf("command for %q: -e given %v, body showable %v", v, escaped, oneline.Showable(v))
		}
	})
}
