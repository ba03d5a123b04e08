package hpatch_test

import (
	"fmt"

	"hpatch-router/hpatch"
	"hpatch-router/rows"
)

func ExampleParse() {
	script := []byte("#!python3\nprint(1)\n")
	row2 := rows.Split(script)[1].Cite() // as hread shows it
	p, err := hpatch.Parse("in @shell/call_1\ntype " + row2 + " \"print(2)\"\nadd EOF <<PATCH\nprint(3)\nPATCH\n")
	if err != nil {
		fmt.Println(err)
		return
	}
	edit, err := p.Sections[0].Apply(script, 1<<20)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q\n", edit.New)
	fmt.Print(hpatch.FormatReport([]hpatch.Edit{edit}))
	// Output:
	// "#!python3\nprint(2)\nprint(3)\n"
	// @shell/call_1
	// 1:e554 #!python3
	// 2:fc92 print(2)
	// 3:e79f print(3)
}

func ExampleParse_workspace() {
	p, err := hpatch.Parse("in src/app.py\ntype \"total =\" \"total = 0\"\nin old.txt\nrm\nnew notes.md\ntype \"# Notes\\n\"\n")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range p.Sections {
		fmt.Printf("line %d: %s kind %d, %d ops, content %q\n", s.Line, s.Path, s.Kind, len(s.Ops), s.Content)
	}
	_, err = hpatch.Parse("in src/app.py\ntype 1:abcd \"x\"\nin @shell/call_1\ntype 1:abcd \"y\"\n")
	fmt.Println(err)
	// Output:
	// line 1: src/app.py kind 0, 1 ops, content ""
	// line 3: old.txt kind 2, 0 ops, content ""
	// line 5: notes.md kind 1, 0 ops, content "# Notes\n"
	// line 3: one hpatch input edits either @shell/ scripts or workspace files, not both; send them as two hpatch calls
}
