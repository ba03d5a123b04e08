package shebang

import "testing"

// Which shell Codex runs a carrier with (FACTS §8: the passwd shell, or
// the exec_command argument "shell"), and what the visible command looks
// like under every one of them.
func TestTranslateCarrierShell(t *testing.T) {
	shape := Options{Params: untyped("workdir", "shell", "tty")}
	noShell := Options{Params: untyped("workdir", "tty")}
	runTable(t, []tc{
		{name: "a one-line body is single-quoted, no escape option",
			in: "#!python3\nprint('hi')", cmd: `shell python3 'print('\''hi'\'')'`},
		{name: "a bare-word body is written bare", in: "#!bash\nls", cmd: "shell bash ls"},
		{name: "a multi-line body is escaped and -e given",
			in: "#!python3\nimport sys\nprint(1)\n", cmd: `shell -e python3 'import sys\nprint(1)\n'`},
		{name: "a one-line body with an invisible rune is escaped",
			in: "#!python3\nprint('a\u200bb')", cmd: `shell -e python3 'print('\''a\xe2\x80\x8bb'\'')'`},
		{name: "a direct command gets bash pinned when the shape offers shell",
			in: "rtk x\n", opts: shape, kind: KindDirect, args: `{"cmd":"rtk x","shell":"bash","login":false}`},
		{name: "a template gets bash pinned when the shape offers shell",
			in: "#!cmd=x | {.}\nls", opts: shape, kind: KindTemplate, args: `{"cmd":"x | shell bash ls","shell":"bash","login":false}`},
		{name: "a template with params but no shell gets bash pinned after them",
			in: "#!cmd=x | {.}\n#!params={\"workdir\":\"/tmp\"}\nls", opts: shape, args: `{"cmd":"x | shell bash ls","workdir":"/tmp","shell":"bash","login":false}`},
		{name: "a worker command is not pinned",
			in: "#!python3\nprint(1)", opts: shape, kind: KindWorker, args: `{"cmd":"shell python3 'print(1)'","login":false}`},
		{name: "no pin when the shape has no shell parameter",
			in: "rtk x\n", opts: noShell, kind: KindDirect, args: `{"cmd":"rtk x","login":false}`},
		{name: "no pin when the shape is unknown", in: "rtk x\n", kind: KindDirect, args: `{"cmd":"rtk x","login":false}`},
		{name: "#!params shell zsh runs the template under zsh, unpinned",
			in: "#!cmd=x | {.}\n#!params={\"shell\":\"zsh\"}\nls", opts: shape, args: `{"cmd":"x | shell bash ls","shell":"zsh","login":false}`},
		{name: "#!params shell names the worker command's shell",
			in: "#!python3\n#!params={\"shell\":\"/bin/SH\"}\nprint(1)", opts: shape, args: `{"cmd":"shell python3 'print(1)'","shell":"/bin/SH","login":false}`},
		{name: "#!params shell is checked without a known shape too",
			in: "#!params={\"shell\":\"dash\"}\nls", args: `{"cmd":"shell bash ls","shell":"dash","login":false}`},
		{name: "#!params shell fish rejects", in: "#!python3\n#!params={\"shell\":\"/usr/bin/fish\"}\nx", opts: shape,
			errSub: `#!params shell "/usr/bin/fish" is not a POSIX shell; name sh, bash`, line: 2},
		{name: "#!params shell pwsh rejects", in: "#!params={\"shell\":\"pwsh\"}\nls", errSub: "not a POSIX shell", line: 1},
		{name: "#!params shell csh rejects", in: "#!cmd={.}\n#!params={\"shell\":\"tcsh\"}\nls", errSub: "not a POSIX shell", line: 2},
		{name: "#!params shell that is not a string rejects", in: "#!params={\"shell\":1}\nls", errSub: "shell 1 is not a POSIX shell", line: 1},
		{name: "#!params empty shell rejects", in: "#!params={\"shell\":\"\"}\nls", errSub: "not a POSIX shell", line: 1},
		{name: "a shebang field with a control byte rejects",
			in: "#!python3 -X\x01\nx", errSub: `shebang field 2 '-X\x01' holds a control character`, line: 1},
		{name: "an interpreter with an invisible rune rejects",
			in: "#!py\u200bthon3\nx", errSub: "invisible character", line: 1},
	})
}
