package buildstamp

import (
	"strings"
	"testing"
)

func TestCommitOfVersion(t *testing.T) {
	for _, tc := range []struct {
		version, commit string
		dirty           bool
	}{
		{"30813ed", "30813ed", false},
		{"30813ed-dirty", "30813ed", true},
		{"v1.2-3-g30813ed", "30813ed", false},
		{"v1.2-3-g30813ed-dirty", "30813ed", true},
		{"v1.2", "", false},
		{"dev", "", false},
		{"", "", false},
		{"abc", "", false},     // too short to be a revision
		{"30813ED", "", false}, // git prints lower case
		{"my-build-gzzzzzzz", "", false},
	} {
		c, d := commitOfVersion(tc.version)
		if c != tc.commit || d != tc.dirty {
			t.Errorf("commitOfVersion(%q) = %q, %v; want %q, %v", tc.version, c, d, tc.commit, tc.dirty)
		}
	}
}

func TestLineRoundTrip(t *testing.T) {
	for _, s := range []Stamp{
		{Version: "30813ed", Commit: "30813ed", Protocol: 1},
		{Version: "v1-2-g30813ed-dirty", Commit: "30813ed", Dirty: true, Protocol: 7},
		{Version: "dev", Protocol: 1},
	} {
		got, err := Parse(s.Line() + "\n")
		if err != nil || got != s {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", s.Line(), got, err, s)
		}
	}
	for _, bad := range []string{
		"", "shell 1.0", "usage: shell …",
		"shell (hpatch-router) dev commit unknown protocol x",
		"shell (hpatch-router) dev commit unknown protocol -1",
		"shell (hpatch-router) dev commit NOTHEX! protocol 1",
		"shell (hpatch-router) dev revision abcdef0 protocol 1",
		"shell (hpatch-router) dev commit abcdef0 protocol 1 extra",
	} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestMismatch(t *testing.T) {
	r := Stamp{Commit: "30813ed", Protocol: 1}
	for _, tc := range []struct {
		name string
		h    Stamp
		want string // "" = fits; else a substring of the reason
	}{
		{"same", Stamp{Commit: "30813ed", Protocol: 1}, ""},
		{"full revision", Stamp{Commit: "30813ed" + strings.Repeat("0", 33), Protocol: 1}, ""},
		{"dirty", Stamp{Commit: "30813ed", Dirty: true, Protocol: 1}, ""},
		{"unknown commit", Stamp{Protocol: 1}, ""},
		{"another commit", Stamp{Commit: "3e849b8", Protocol: 1}, "helper of commit 3e849b8, router of commit 30813ed"},
		{"another protocol", Stamp{Commit: "30813ed", Protocol: 2}, "helper protocol 2, router protocol 1"},
		{"unknown commit, another protocol", Stamp{Protocol: 0}, "protocol"},
	} {
		got := Mismatch(r, tc.h)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: Mismatch = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("shell (hpatch-router) 30813ed commit 30813ed protocol 1")
	f.Add("shell (hpatch-router) dev commit unknown+dirty protocol 3\n")
	f.Fuzz(func(t *testing.T, line string) {
		s, err := Parse(line)
		if err != nil {
			return
		}
		// What parses prints back to a line that parses to the same stamp.
		again, err := Parse(s.Line())
		if err != nil || again != s {
			t.Fatalf("Parse(%q) = %+v, but its Line %q parses to %+v, %v", line, s, s.Line(), again, err)
		}
	})
}
