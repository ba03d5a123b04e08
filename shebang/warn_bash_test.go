package shebang

import (
	"strings"
	"testing"
)

// TestBashDifferenceNotes: a bash or sh body that uses an idiom the
// worker's Bash runs differently gets one note per kind, saying what to
// write instead; a direct command runs in Codex's own shell and other
// interpreters are not Bash, so neither gets one. The worker's corpus
// (worker/bashdiff_test.go) proves each difference against GNU Bash.
func TestBashDifferenceNotes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string // substrings, one note each, in order; nil: no note
	}{
		{"true | false\necho \"${PIPESTATUS[@]}\"\n", []string{"PIPESTATUS is never set"}},
		{"a | b; echo ${PIPESTATUS[0]} ${PIPESTATUS[1]}", []string{"PIPESTATUS"}},
		{"#!sh\nprintf -v x '%s' 1\n", []string{"printf -v is not supported"}},
		{"printf \"%(%F)T\\n\" -1; read -t 5 x", []string{"%(…)T", "read takes only"}},
		{"coproc cat\nexec 3>&1\n", []string{"coproc", "file descriptors above 2"}},
		{"f() { echo $FUNCNAME; }\nulimit -n 10; kill 1; jobs\n", []string{"FUNCNAME", "ulimit is not available", "kill builtin", "jobs is not available"}},
		{"declare -i n=1; local -u u; typeset -F", []string{"-i, -l, -u"}},
		{"sleep 1 & echo $!", []string{"$! is a job handle"}},
		{"sleep 1 & wait $!", nil},
		{"wait -n; echo ${@:-x} ${v@Q}", []string{"wait -n", "${@:-…}", "${var@Q}"}},
		{"trap 'x' INT TERM", []string{"trap handles only EXIT and ERR"}},
		{"trap 'x' EXIT ERR; trap - EXIT", nil},
		{"echo 2>&1 >&2 <&0; read -r -a a; declare -A m; local x", nil},
		{"printf '%.2f %q\\n' 1 a; echo $BASH_VERSION", nil},
		{"#!python3\nprint('${PIPESTATUS[@]}')\n", nil},
		{"kill -TERM 1234", []string{"kill builtin"}}, // a builtin is never direct
		{"ls \"${PIPESTATUS[@]}\" $!", nil},           // direct: Codex's shell runs it
	} {
		p, err := Translate(c.in, Options{})
		if err != nil {
			t.Fatalf("Translate(%q): %v", c.in, err)
		}
		var notes []string
		for _, w := range p.Warnings {
			if strings.Contains(w, "shell's Bash") {
				notes = append(notes, w)
			}
		}
		if len(notes) != len(c.want) {
			t.Errorf("Translate(%q) notes %q, want %d", c.in, notes, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(notes[i], w) || strings.Count(notes[i], "\n") != 0 || !strings.HasPrefix(notes[i], "shell: note: ") {
				t.Errorf("Translate(%q) note %d = %q, want one line with %q", c.in, i, notes[i], w)
			}
		}
	}
}
