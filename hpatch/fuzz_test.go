package hpatch

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"hpatch-router/rows"
	"hpatch-router/scriptref"
)

// parsePatchBase is the script FuzzParsePatch's seeds cite.
const parsePatchBase = "a\nb\r\nc\rd"

// parsePatchSeeds are FuzzParsePatch's seeds (grammar_test.go checks them
// against the hpatch grammar too).
func parsePatchSeeds() []string {
	baseRows := rows.Split([]byte(parsePatchBase))
	c := func(i int) string { return baseRows[i-1].Cite() }
	return []string{
		"in @shell/s\ntype " + c(2) + " \"B\"",
		"in @shell/s\ntype " + c(1) + ".." + c(3) + " <<PATCH\nx\n\nPATCH\nadd EOF \"z\\n\"",
		"in @shell/s\nadd " + c(4) + " \"q\"\nadd " + c(4) + " \"r\"\ntype " + c(4) + " \"\"",
		"in @shell/s\ntype " + c(2) + " \"\"\nin @shell/t\nadd EOF <<PATCH\nPATCH",
		"in src/main.go\ntype 1:abcd \"x\"",
		"in src/main.go\ntype \"b\" \"B\"\nadd \"c\" 1 \"C\"\nin x\nmv \"y z\"\nin old\nrm\nnew n\ntype <<PATCH\nn\nPATCH",
		"in @shell/s\ntype \"a\" 1 \"A\"\nadd \"d\" \"D\"",
		"in @shell/../x\n",
		"type 1:0000 \"x\"",
		// Edits written for other tools (issue 25).
		"*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch\n",
		"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
		"{\"in\":\"@shell/s\",\"type\":\"1:abcd\"}",
		"```\nin @shell/s\ntype 1:abcd \"x\"\n```",
		"in @shell/s\r\ntype " + c(1) + " \"\\u00e9\\r\\n\"\r\n",
		"",
		"in @shell/s\ntype 99:ffff..100:ffff \"x\"",
	}
}

func FuzzParsePatch(f *testing.F) {
	for _, s := range parsePatchSeeds() {
		f.Add(s, []byte(parsePatchBase))
	}
	f.Fuzz(func(t *testing.T, text string, base []byte) {
		p, err := Parse(text)
		if err != nil {
			checkPatchError(t, err)
			return
		}
		if p2, err := Parse(text); err != nil || !reflect.DeepEqual(p, p2) {
			t.Fatalf("Parse is not deterministic")
		}
		if p.Workspace {
			fuzzFileSections(t, p, base)
			return
		}
		baseline := map[string][]byte{}
		for _, s := range p.Sections {
			if len(s.Ops) == 0 {
				t.Fatalf("accepted a section without ops")
			}
			baseline[s.ID] = base
		}
		e1, err1 := applyScripts(p, baseline)
		e2, err2 := applyScripts(p, baseline)
		if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
			t.Fatalf("Apply is not deterministic: %v / %v", err1, err2)
		}
		if err1 != nil {
			checkPatchError(t, err1)
			return
		}
		if len(e1) != len(p.Sections) {
			t.Fatalf("%d edits for %d sections", len(e1), len(p.Sections))
		}
		for i := range e1 {
			if !bytes.Equal(e1[i].New, e2[i].New) || e1[i].Report != e2[i].Report {
				t.Fatalf("Apply is not deterministic for %s", e1[i].ID)
			}
			if !utf8.Valid(e1[i].New) {
				t.Fatalf("edit produced invalid UTF-8")
			}
			if !strings.HasPrefix(e1[i].Report, scriptref.FormatRef(e1[i].ID)+"\n") {
				t.Fatalf("report without header: %q", e1[i].Report)
			}
			if !bytes.Equal(base, e1[i].Old) {
				t.Fatalf("Apply changed its baseline")
			}
		}
	})
}

// fuzzFileSections applies each workspace edit section to base, as the
// workspace resolver would, and checks the outcome the way the script path
// does.
func fuzzFileSections(t *testing.T, p *Patch, base []byte) {
	for _, s := range p.Sections {
		if s.Path == "" || s.ID != "" {
			t.Fatalf("workspace section with id %q path %q", s.ID, s.Path)
		}
		if s.Kind != SectionEdit {
			continue
		}
		e1, err1 := s.Apply(base, testLimit)
		e2, err2 := s.Apply(base, testLimit)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("Section.Apply is not deterministic: %v / %v", err1, err2)
		}
		if err1 != nil {
			checkPatchError(t, err1)
			continue
		}
		if !bytes.Equal(e1.New, e2.New) || e1.Report != e2.Report || !utf8.Valid(e1.New) {
			t.Fatalf("Section.Apply is not deterministic or gave invalid UTF-8")
		}
		if !strings.HasPrefix(e1.Report, s.Path+"\n") {
			t.Fatalf("report without the path header: %q", e1.Report)
		}
	}
}

func checkPatchError(t *testing.T, err error) {
	t.Helper()
	if _, ok := err.(*Error); !ok {
		t.Fatalf("error %T is not a *Error: %v", err, err)
	}
	if strings.ContainsAny(err.Error(), "\n\r") {
		t.Fatalf("error is not one line: %q", err)
	}
}

// FuzzApplyCited builds edits that cite real rows, so the accepted path is
// exercised, and checks the row arithmetic of each operation: rows outside
// the target are preserved byte for byte.
// applyCitedSeed is one FuzzApplyCited input.
type applyCitedSeed struct {
	base, value string
	kind, a, b  uint8
}

func applyCitedSeeds() []applyCitedSeed {
	return []applyCitedSeed{
		{"a\nb\nc\n", "X", 0, 1, 2},
		{"a\r\nb\r\nc", "X\nY", 1, 0, 0},
		{"a\rb", "", 0, 0, 1},
		{"", "z", 2, 0, 0},
	}
}

// citedPatch is the edit FuzzApplyCited builds from its input: a type of
// rows lo..hi, an add before row lo, or an add at EOF (lo = row count);
// ok is false for inputs it skips.
func citedPatch(base, value string, kind, a, b uint8) (patch string, lo, hi int, ok bool) {
	if !utf8.ValidString(base) || !utf8.ValidString(value) || strings.ContainsRune(value, 0) {
		return "", 0, 0, false
	}
	baseRows := rows.Split([]byte(base))
	n := len(baseRows)
	val, _ := jsonString(value)
	switch kind % 3 {
	case 0: // type lo..hi
		if n == 0 {
			return "", 0, 0, false
		}
		lo, hi = int(a)%n, int(b)%n
		if lo > hi {
			lo, hi = hi, lo
		}
		return "in @shell/s\ntype " + baseRows[lo].Cite() + ".." + baseRows[hi].Cite() + " " + val, lo, hi, true
	case 1: // add before lo
		if n == 0 || value == "" {
			return "", 0, 0, false
		}
		lo = int(a) % n
		return "in @shell/s\nadd " + baseRows[lo].Cite() + " " + val, lo, 0, true
	}
	if value == "" { // add EOF
		return "", 0, 0, false
	}
	return "in @shell/s\nadd EOF " + val, n, 0, true
}

func FuzzApplyCited(f *testing.F) {
	for _, s := range applyCitedSeeds() {
		f.Add(s.base, s.value, s.kind, s.a, s.b)
	}
	f.Fuzz(func(t *testing.T, base, value string, kind, a, b uint8) {
		patch, lo, hi, ok := citedPatch(base, value, kind, a, b)
		if !ok {
			return
		}
		baseRows := rows.Split([]byte(base))
		n := len(baseRows)
		p, err := Parse(patch)
		if err != nil {
			t.Fatalf("Parse(%q): %v", patch, err)
		}
		edits, err := applyScripts(p, map[string][]byte{"s": []byte(base)})
		if err != nil {
			t.Fatalf("Apply(%q): %v", patch, err)
		}
		out := rows.Split(edits[0].New)
		k := len(rows.Split([]byte(value)))
		want := n + k
		if kind%3 == 0 {
			want = n - (hi - lo + 1) + k
		}
		if len(out) != want {
			t.Fatalf("%q on %q: %d rows, want %d: %q", patch, base, len(out), want, edits[0].New)
		}
		// Rows before the target keep their text; rows after it keep text
		// and terminator.
		for i := 0; i < lo; i++ {
			if !bytes.Equal(out[i].Text, baseRows[i].Text) {
				t.Fatalf("row %d changed", i+1)
			}
		}
		tail := n - hi - 1
		if kind%3 != 0 {
			tail = n - lo
		}
		for j := 1; j <= tail; j++ {
			o, r := out[len(out)-j], baseRows[n-j]
			if !bytes.Equal(o.Text, r.Text) {
				t.Fatalf("row %d from the end changed: %q -> %q", j, r.Text, o.Text)
			}
			if j > 1 && !bytes.Equal(o.Term, r.Term) {
				t.Fatalf("terminator of row %d from the end changed", j)
			}
		}
	})
}

// jsonString quotes s as a JSON string literal.
func jsonString(s string) (string, error) {
	b, err := json.Marshal(s)
	return string(b), err
}
