package jsonline

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzAppendSerdeString: every valid UTF-8 string AppendSerdeString writes
// decodes back to itself, escaping only what serde_json (Codex) escapes.
func FuzzAppendSerdeString(f *testing.F) {
	for _, s := range []string{"", "plain", "a\nb\t\"q\"\\ / \b\f\r", "\u00e9\u20ac <>&", "\x01\x1f\x7f", strings.Repeat("line\n", 40)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		enc := AppendSerdeString(nil, s)
		var dec string
		if err := json.Unmarshal(enc, &dec); err != nil || dec != s {
			t.Fatalf("AppendSerdeString(%q) = %s, which decodes to %q (%v)", s, enc, dec, err)
		}
		for _, c := range []string{"<", ">", "&"} {
			if strings.Contains(s, c) && !strings.Contains(string(enc), c) {
				t.Fatalf("AppendSerdeString(%q) escaped %q, which serde_json writes as it is", s, c)
			}
		}
	})
}
