package shebang

import (
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// Item 2 of issue 14: each wrapper is read as its program reads it, so it
// gets its kind's warning; plain script runs get none.
func TestTranslateA16WrapperKinds(t *testing.T) {
	none := []string{}
	runTable(t, []tc{
		// Prefix commands: their option values are not the command.
		{name: "sudo -u bob: bob is the option's value", in: "sudo -u bob python3 -c 'print(1)'\n", warn: []string{"`python -c`"}},
		{name: "sudo --user=bob -E", in: "sudo --user=bob -E python3 -c 1\n", warn: []string{"`python -c`"}},
		{name: "sudo --user bob, env -C dir and an assignment", in: "sudo --user bob env -C /tmp PYTHONPATH=. python3 -c 1\n", warn: []string{"`python -c`"}},
		{name: "sudo -iu bob: the cluster ends with a value letter", in: "sudo -iu bob bash -c ls\n", warn: []string{"`bash -c`"}},
		{name: "timeout -s KILL 5", in: "timeout -s KILL 5 node -e 1\n", warn: []string{"`node -e`"}},
		{name: "xargs -I{} with the value attached", in: "ls | xargs -I{} python3 -c 'print(\"{}\")'\n", warn: []string{"`python -c`"}},
		{name: "xargs -I {} with the value apart", in: "ls | xargs -I {} node -e 1\n", warn: []string{"`node -e`"}},
		{name: "nice -n 10 perl -ne", in: "nice -n 10 perl -ne 'print'\n", warn: []string{"`perl -e`"}},
		// Programs on stdin.
		{name: "bash <<< is an interpreter here-string", in: "bash <<< 'echo hi'\n", warn: []string{"here-string that feeds an interpreter"}},
		{name: "python3 <<< is an interpreter here-string", in: "python3 <<< 'print(1)'\n", warn: []string{"here-string"}},
		{name: "python3 - <<EOF is an interpreter heredoc", in: "python3 - <<'EOF'\nprint(1)\nEOF\n", warn: []string{"interpreter heredoc"}},
		{name: "bash -s ARG <<EOF reads its program from stdin", in: "bash -s arg <<'EOF'\necho $1\nEOF\n", warn: []string{"interpreter heredoc"}},
		{name: "a here-string to a non-interpreter is data", in: "grep x <<< \"$v\"\n", warn: none},
		{name: "a here-string to a script is data", in: "python3 script.py <<< data\n", warn: none},
		{name: "a heredoc to a script is a generic heredoc", in: "python3 script.py <<EOF\ndata\nEOF\n", warn: []string{"a heredoc adds"}},
		// SQL clients.
		{name: "psql -c", in: "psql -c 'select 1'\n", warn: []string{"`psql -c` puts SQL in shell quoting"}},
		{name: "psql options with values, then --command=", in: "psql -h db -U me --command='select 1'\n", warn: []string{"`psql -c`"}},
		{name: "mysql -u root -e", in: "mysql -u root -e 'select 1'\n", warn: []string{"`mysql -e`"}},
		{name: "mariadb --execute", in: "mariadb --execute='select 1'\n", warn: []string{"`mysql -e`"}},
		{name: "sqlite3 DB SQL", in: "sqlite3 db 'select 1'\n", warn: []string{"`sqlite3 SQL argument` puts SQL in shell quoting; send the SQL as the body instead: first line #!cat, then #!cmd={.} | sqlite3"}},
		{name: "sqlite3 -header DB SQL", in: "sqlite3 -header -separator , db 'select 1'\n", warn: []string{"`sqlite3 SQL argument`"}},
		{name: "sqlite3 -cmd", in: "sqlite3 -cmd '.mode csv' db\n", warn: []string{"`sqlite3 SQL argument`"}},
		{name: "sqlite3 DB alone reads SQL from stdin", in: "sqlite3 db < q.sql\n", warn: none},
		// Other inline programs.
		{name: "deno eval", in: "deno eval 'console.log(1)'\n", warn: []string{"`deno eval`"}},
		{name: "node --input-type=module -e", in: "node --input-type=module -e 'console.log(1)'\n", warn: []string{"`node -e`"}},
		{name: "node --input-type module -e", in: "node --input-type module -e 1\n", warn: []string{"`node -e`"}},
		{name: "python3 -W ignore -c", in: "python3 -W ignore -c 1\n", warn: []string{"`python -c`"}},
		{name: "pwsh -Command", in: "pwsh -NoProfile -Command 'Get-Date'\n", warn: []string{"--command passes"}},
		{name: "fish --command=", in: "fish --command=ls\n", warn: []string{"--command passes"}},
		// Plain runs: no warning.
		{name: "python3 script.py", in: "python3 script.py\n", kind: KindDirect, warn: none},
		{name: "node app.js", in: "node app.js\n", kind: KindDirect, warn: none},
		{name: "a -c after the script belongs to the script", in: "python3 script.py -c config.toml\n", warn: none},
		{name: "a -e after the script belongs to the script", in: "node app.js -e production\n", warn: none},
		{name: "python3 -m names the program", in: "python3 -m pytest -c pytest.ini\n", warn: none},
		{name: "python3 -W VALUE before the script", in: "python3 -W ignore script.py -c x\n", warn: none},
		{name: "a quoted script path is an operand", in: "bash \"$script\" -c x\n", warn: none},
		{name: "sudo runs a plain script", in: "sudo -u bob python3 tool.py\n", warn: none},
		// Inline shell programs are scanned.
		{name: "a heredoc inside bash -lc \"…\"", in: "bash -lc \"cat <<EOF\nx\nEOF\"\n", warn: []string{"`bash -c`", "a heredoc adds"}},
		{name: "an interpreter heredoc inside sh -c '…'", in: "sh -c 'python3 - <<EOF\nprint(1)\nEOF'\n", warn: []string{"`bash -c`", "interpreter heredoc"}},
		{name: "nested wrappers inside bash -c", in: "bash -c \"node -e 1 && psql -c 'select 1'\"\n", warn: []string{"`bash -c`", "`node -e`", "`psql -c`"}},
		{name: "an expanded program is not scanned", in: "sh -c \"$CMD\"\n", warn: []string{"`bash -c`"}},
		{name: "a command substitution in the program is not run", in: "bash -c \"$(cat x) python3 -c 1\"\n", warn: []string{"`bash -c`"}},
	})
}

// FuzzShellWarnings: detection never panics, is deterministic, and gives
// each kind once, as a one-line note.
func FuzzShellWarnings(f *testing.F) {
	for _, s := range []string{
		"sudo -u bob python3 -c 1", "bash <<< 'echo hi'", "sqlite3 -cmd x db 'q'", "xargs -I{} node -e 1",
		"bash -c \"bash -c 'bash -c \\\"cat <<EOF\nx\nEOF\\\"'\"", "timeout", "sudo --user", "env -S", "python3 -W",
		"pwsh -Command", "deno eval", "psql --command", "python3 -m", "bash -s <<E\nE\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		a, b := shellWarnings(text, syntax.LangBash), shellWarnings(text, syntax.LangBash)
		if !slices.Equal(a, b) {
			t.Fatalf("not deterministic: %q vs %q", a, b)
		}
		for i, w := range a {
			if !strings.HasPrefix(w, "shell: note: ") || strings.ContainsAny(w, "\r\n") || slices.Contains(a[:i], w) {
				t.Fatalf("warning %q is not one new note line (all: %q)", w, a)
			}
		}
	})
}
