package grammar

import (
	"os/exec"
	"strings"
	"testing"

	"hpatch-router/internal/testenv"
)

// The checker agrees with Lark itself (python3-lark): what it accepts Lark
// builds, and what it refuses for a Lark reason Lark refuses too. (It is
// stricter where the API is: a lookahead, a backreference, the x flag.)
func TestCheckLarkAgreesWithLark(t *testing.T) {
	py := testenv.NeedTool(t, "/usr/bin/python3")
	if exec.Command(py, "-c", "import lark").Run() != nil {
		testenv.Missing(t, "python3-lark", "import lark failed")
	}
	cases := map[string]bool{
		"start: expr\nexpr: NUMBER (\"+\" NUMBER)*\n    | \"(\" expr \")\"\nNUMBER: /[0-9]+/\n%ignore \" \"\n": true,
		"%import common.WS\n%import common (DIGIT, LETTER)\nstart: LETTER DIGIT -> pair\n%ignore WS\n":         true,
		"start: _sep{item, \",\"}\n_sep{x, sep}: x (sep x)*\nitem.2: ITEM\nITEM.-1: /a/i\n":                    true,
		"start: foo BAR\n":                   false,
		"expr: \"x\"\n":                      false,
		"start: (\"a\" | \"b\"\nx: \"c\")\n": false,
		"start: A\nA: /a[/\n":                false,
		"start: \"abc\n":                     false,
		"start \"a\"\n":                      false,
		"start: \"a\"\n%frobnicate x\n":      false,
	}
	var srcs []string
	for src := range cases {
		srcs = append(srcs, src)
	}
	// One interpreter for all cases: each argument is one grammar, each
	// output line says whether Lark built it.
	script := "import sys, lark\nfor s in sys.argv[1:]:\n    try:\n        lark.Lark(s); print('ok')\n    except Exception:\n        print('no')\n"
	out, err := exec.Command(py, append([]string{"-c", script}, srcs...)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	verdicts := strings.Fields(string(out))
	if len(verdicts) != len(srcs) {
		t.Fatalf("lark answered %q", out)
	}
	for i, src := range srcs {
		valid := cases[src]
		ours := len(CheckLark(src)) == 0
		theirs := verdicts[i] == "ok"
		if ours != valid || theirs != valid {
			t.Errorf("%q: checker %v, Lark %v, want %v", src, ours, theirs, valid)
		}
	}
}
