package ident

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestIDRule(t *testing.T) {
	long := strings.Repeat("a", MaxBytes)
	tests := []struct {
		name             string
		id               string
		thread, artifact bool // accepted as a thread id, as an artifact id
		reason           string
	}{
		{"a Codex call id", "call_0aB-9", true, true, ""},
		{"a Codex thread id (UUID)", "019a3b2c-7d4e-7f00-8a1b-2c3d4e5f6a7b", true, true, ""},
		{"dots inside a name", "..x", true, true, ""},
		{"a hidden name", ".hidden", true, true, ""},
		{"non-ASCII letters", "appel-é", true, true, ""},
		{"exactly MaxBytes", long, true, true, ""},
		{"one byte over MaxBytes", long + "a", false, false, "129 bytes long"},
		{"a 300-byte id (ENAMETOOLONG before)", strings.Repeat("x", 300), false, false, "at most 128"},
		{"empty", "", false, false, "is empty"},
		{"dot", ".", false, false, "not a filename"},
		{"dot dot", "..", false, false, "not a filename"},
		{"slash", "a/b", false, false, "path separator"},
		{"backslash", `a\b`, false, false, "path separator"},
		{"NUL", "a\x00b", false, false, "NUL"},
		{"space: retained but never rerunnable before", "a b", false, false, "blank"},
		{"tab", "a\tb", false, false, "blank"},
		{"LF", "a\nb", false, false, "line break"},
		{"CR", "a\rb", false, false, "line break"},
		{"NEL", "a\u0085b", false, false, "blank or line break"},
		{"line separator", "a\u2028b", false, false, "line break"},
		{"no-break space", "a\u00a0b", false, false, "blank"},
		{"escape character", "a\x1bb", false, false, "control character"},
		{"DEL", "a\x7fb", false, false, "control character"},
		{"invalid UTF-8", "a\xffb", false, false, "UTF-8"},
		{"the launcher link", ".runtime", true, false, "launcher link"},
		{"a store temporary file", ".hpatch-tmp-x", true, false, "temporary files"},
		{"a snapshot directory as a thread", "snapshot-0123456789abcdef0123456789abcdef", false, true, "snapshot directories"},
		{"snapshot prefix alone", "snapshot-", false, true, "snapshot directories"},
		{"snapshot without the dash", "snapshotx", true, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range []struct {
				kind Kind
				err  error
				want bool
			}{{ThreadKind, Thread(tt.id), tt.thread}, {ArtifactKind, Artifact(tt.id), tt.artifact}} {
				if (c.err == nil) != c.want {
					t.Fatalf("%s %q: err %v, want accepted=%v", c.kind, tt.id, c.err, c.want)
				}
				if c.err == nil {
					continue
				}
				var e *Error
				if !errors.As(c.err, &e) || e.Kind != c.kind || e.ID != tt.id {
					t.Errorf("%s %q: error %#v is not an *Error of that kind and id", c.kind, tt.id, c.err)
				}
				msg := c.err.Error()
				if !strings.HasPrefix(msg, string(c.kind)+" ") || strings.ContainsAny(msg, "\r\n") {
					t.Errorf("%s %q: message %q must start with the kind and be one line", c.kind, tt.id, msg)
				}
				if tt.reason != "" && !strings.Contains(msg, tt.reason) {
					t.Errorf("%s %q: message %q does not say %q", c.kind, tt.id, msg, tt.reason)
				}
			}
		})
	}
}

func TestErrorMessageIsBounded(t *testing.T) {
	err := Thread(strings.Repeat("é", 200))
	if err == nil || len(err.Error()) > 160 {
		t.Fatalf("a long id must be shortened in the message: %v", err)
	}
	if !utf8.ValidString(err.Error()) {
		t.Fatalf("shortening cut a character in half: %q", err)
	}
}

// FuzzIDRule checks what an accepted id guarantees to its users: one
// filename component that stays one line in a #!script= line and a
// diagnostic, and fits a directory entry with the "hpatch-" prefix.
func FuzzIDRule(f *testing.F) {
	for _, s := range []string{"call_1", "a b", ".runtime", "..", "a/b", "snapshot-x", ".hpatch-tmp-1", "\u2028", strings.Repeat("z", 129)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		for _, err := range []error{Thread(id), Artifact(id)} {
			if err != nil {
				if strings.ContainsAny(err.Error(), "\r\n") {
					t.Fatalf("message is not one line: %q", err)
				}
				continue
			}
			switch {
			case filepath.Base(id) != id || id == "." || id == "..":
				t.Fatalf("accepted %q, which is not one filename component", id)
			case len("hpatch-"+id) > 255 || len(id) > MaxBytes:
				t.Fatalf("accepted a %d-byte id", len(id))
			case !utf8.ValidString(id) || strings.ContainsAny(id, "\\\x00"):
				t.Fatalf("accepted %q", id)
			case strings.IndexFunc(id, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
				t.Fatalf("accepted %q with a blank or control character", id)
			}
		}
		if Thread(id) == nil && strings.HasPrefix(id, SnapshotPrefix) {
			t.Fatalf("thread %q collides with a snapshot directory", id)
		}
		if Artifact(id) == nil && (id == RuntimeLink || strings.HasPrefix(id, TempPrefix)) {
			t.Fatalf("artifact %q collides with a runtime name", id)
		}
	})
}
