package scriptref

import (
	"errors"
	"strings"
	"testing"

	"hpatch-router/ident"
)

// TestScriptReference is the rerun rule of doc.go, the one the router and
// retain both use.
func TestScriptReference(t *testing.T) {
	for in, want := range map[string]string{
		"#!script=@shell/call_1":                      "call_1",
		"#!script=@shell/call_1\n":                    "call_1",
		"#!script=@shell/call_1\r\n":                  "call_1",
		"#!script=@shell/call_1\r":                    "call_1",
		" \t#!script=@shell/call_1 \t\n":              "call_1",
		"  #!script=@shell/a":                         "a",
		"#!script= @shell/call_1":                     "call_1",
		"#!script=@shell/call_1\n\n":                  "",
		"#!script=@shell/call_1\nls":                  "",
		"#!script=@shell/":                            "",
		"#!script=@shell/..":                          "",
		"#!script=@shell/.runtime":                    "",
		"#!script=@shell/.hpatch-tmp-x":               "",
		"#!script=@shell/a/b":                         "",
		"#!script=@shell/a\\b":                        "",
		"#!script=/etc/passwd":                        "",
		"#!script=@shell/a b":                         "",
		"#!script=@shell/" + strings.Repeat("x", 129): "",
		"# !script=@shell/call_1":                     "",
		"ls\n#!script=@shell/call_1":                  "",
		"#!script=@shell/call_1 #!python3":            "",
	} {
		id, ok := ScriptReference(in)
		if ok != (want != "") || id != want {
			t.Errorf("ScriptReference(%q) = %q, %v; want %q", in, id, ok, want)
		}
	}
}

func TestParseRef(t *testing.T) {
	for ref, want := range map[string]string{"@shell/call_1": "call_1", "@shell/..x": "..x"} {
		got, err := ParseRef(ref)
		if err != nil || got != want || FormatRef(got) != ref {
			t.Errorf("ParseRef(%q) = %q, %v", ref, got, err)
		}
	}
	for _, bad := range []string{"", "@shell", "@shell/", "@shell/.", "@shell/..", "@shell/../x", "@shell/a/b",
		`@shell/a\b`, "@shell/a\x00", "@shell/.runtime", "@shell/.hpatch-tmp-1", "@shell/a b", " @shell/a", "@shell/a ",
		"@Shell/x", "shell/x", "/@shell/x", "@shell//x"} {
		id, err := ParseRef(bad)
		var re *RefError
		if err == nil || !errors.As(err, &re) || re.Ref != bad {
			t.Errorf("ParseRef(%q) = %q, %v; want a *RefError", bad, id, err)
		}
	}
	var ie *ident.Error
	if _, err := ParseRef("@shell/a b"); !errors.As(err, &ie) || ie.Kind != ident.ArtifactKind {
		t.Errorf("the id's own error must be reachable with errors.As, got %v", err)
	}
}
