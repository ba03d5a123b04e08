package retain_test

import (
	"fmt"

	"hpatch-router/retain"
)

func ExampleParsePatch() {
	script := []byte("#!python3\nprint(1)\n")
	row2 := retain.Rows(script)[1].Cite() // as hread shows it
	p, err := retain.ParsePatch("in @shell/call_1\ntype " + row2 + " \"print(2)\"\nadd EOF <<PATCH\nprint(3)\nPATCH\n")
	if err != nil {
		fmt.Println(err)
		return
	}
	edits, err := p.Apply(map[string][]byte{"call_1": script})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q\n", edits[0].New)
	fmt.Print(retain.FormatReport(edits))
	// Output:
	// "#!python3\nprint(2)\nprint(3)\n"
	// @shell/call_1
	// 1:e554 #!python3
	// 2:fc92 print(2)
	// 3:e79f print(3)
}

func ExampleParsePatch_workspacePath() {
	_, err := retain.ParsePatch("in src/main.go\ntype 1:abcd \"x\"\n")
	fmt.Println(err)
	// Output:
	// line 1: "src/main.go" is not a retained script; hpatch edits only retained @shell/<id> scripts, use apply_patch or the shell for workspace files
}
