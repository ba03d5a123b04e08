package retain

import (
	"errors"
	"strings"
	"testing"

	"hpatch-router/hpatch"
)

// The store's own refusals of a parsed edit (applyPatch): a workspace
// edit is the resolver's, and a script the baseline lacks is gone; each is
// one *hpatch.Error line at the input line at fault, without a tool prefix.
func TestApplyPatchStoreRejects(t *testing.T) {
	const abcd = "a\nb\nc\nd\n"
	tests := []struct {
		name, base, patch string
		line              int
		want              string
	}{
		{"workspace path", abcd, "in src/main.go\ntype {1} \"x\"", 1, "\"src/main.go\" is a workspace file, and this edit reached only the retained-script store"},
		{"absolute workspace path", abcd, "in /etc/passwd\ntype {1} \"x\"", 1, "workspace edits are resolved by the router"},
		{"script not retained", abcd, "in @shell/s\ntype {1} \"x\"\nin @shell/gone\nadd EOF \"y\"", 3, "does not exist"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParsePatch(cite(t, tc.patch, tc.base))
			if err == nil {
				_, err = applyPatch(p, map[string][]byte{"s": []byte(tc.base)})
			}
			var pe *hpatch.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v is not a *hpatch.Error", err, err)
			}
			if pe.Line != tc.line {
				t.Errorf("line = %d, want %d (%v)", pe.Line, tc.line, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") || strings.HasPrefix(msg, "hpatch:") {
				t.Fatalf("error %q: want one line containing %q, without a tool prefix", msg, tc.want)
			}
		})
	}
}
