//go:build linux

package worker

import (
	"testing"

	"hpatch-router/privname"
	"hpatch-router/shebang"
)

// A private command exists only inside the worker, so translation must
// never send a call to one as a direct native command: every entry of the
// dispatch table is one shebang keeps off the direct path.
func TestPrivateCommandsAreNeverDirect(t *testing.T) {
	for name := range privateCommands(nil) {
		p, err := shebang.Translate(name+" x", shebang.Options{})
		if err != nil || p.Kind == shebang.KindDirect || !privname.Is(name) {
			t.Errorf("%s: plan %+v, err %v; want a worker call", name, p, err)
		}
	}
}

// Every entry of the dispatch table runs under real limits: a zero limit
// refuses everything, so a command added without privcmd.Bounds fails here
// instead of in use.
func TestPrivateCommandsAreBounded(t *testing.T) {
	for name, c := range privateCommands(nil) {
		if l := c.limits; l.Input <= 0 || l.Output <= 0 || l.Time <= 0 {
			t.Errorf("%s runs under %+v", name, l)
		}
	}
}
