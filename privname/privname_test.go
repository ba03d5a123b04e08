package privname

import "testing"

// Only the exact names are private commands: a call that merely resembles
// one (another case, a path, a blank) is an ordinary command and may run
// natively.
func TestIs(t *testing.T) {
	for _, name := range []string{Hread, Hgrep, Hsymbol, InspectFile, HpatchWrite} {
		if !Is(name) {
			t.Errorf("Is(%q) = false", name)
		}
	}
	for _, name := range []string{"", "hpatch", "Hread", "hread ", "./hread", "/usr/bin/hgrep", "inspect-file", "hpatch_write", "rg"} {
		if Is(name) {
			t.Errorf("Is(%q) = true", name)
		}
	}
}
