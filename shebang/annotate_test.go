package shebang

import (
	"strings"
	"testing"
)

func TestAnnotateExecOnlyForRealCalls(t *testing.T) {
	for _, tt := range []struct {
		name, js string
		want     bool
	}{
		{"A16: a direct call", `await tools.exec_command({cmd: "ls"});`, true},
		{"A16: bracket call", `const r = await tools["exec_command"]({cmd: "ls"}); text(r);`, true},
		{"A16: optional chaining", `await tools?.exec_command?.({cmd: "ls"});`, true},
		{"A16: inside a template substitution", "text(`${await tools.exec_command({cmd: 'ls'})}`);", true},
		{"mention in a comment", "// tools.exec_command(...) is not used here\ntext(1);", false},
		{"mention in a string", `text("await tools.exec_command(x)");`, false},
		{"another tool", `await tools.exec_commands({cmd: "ls"});`, false},
		{"property read, no call", `const f = tools.exec_command; text(typeof f);`, false},
		{"not JavaScript", "rg -n 'await tools.exec_command(' router/ #", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, changed := AnnotateExec(tt.js)
			if changed != tt.want {
				t.Fatalf("changed = %v, want %v", changed, tt.want)
			}
			if changed != strings.Contains(out, execNotice) {
				t.Errorf("changed = %v but output %q", changed, out)
			}
			if again, twice := AnnotateExec(out); twice || again != out {
				t.Errorf("second annotation changed the script again")
			}
		})
	}
}
