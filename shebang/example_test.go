package shebang_test

import (
	"fmt"

	"hpatch-router/shebang"
)

func ExampleTranslate() {
	p, err := shebang.Translate("#!/usr/bin/env python3\nprint('hi')\n", shebang.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Kind, p.Interpreter, p.Retainable)
	fmt.Println(p.Cmd)
	fmt.Println(string(p.Args))
	// Output:
	// worker python3 true
	// shell -e python3 'print('\''hi'\'')\n'
	// {"cmd":"shell -e python3 'print('\\''hi'\\'')\\n'","login":false}
}

func ExampleTranslate_direct() {
	p, _ := shebang.Translate("rtk shadowtree test . -run='^$'\n", shebang.Options{})
	fmt.Println(p.Kind, p.Cmd)
	// Output: direct rtk shadowtree test . -run='^$'
}

func ExampleTranslate_template() {
	p, _ := shebang.Translate("#!params={\"workdir\":\"/tmp\"}\n#!cmd=curl -fsSL URL | {.} | jq\necho hi\n", shebang.Options{})
	fmt.Println(p.Kind, string(p.Args))
	// Output: template {"cmd":"curl -fsSL URL | shell -e bash 'echo hi\\n' | jq","workdir":"/tmp","login":false}
}

func ExampleTranslate_rejected() {
	_, err := shebang.Translate("#!/usr/bin/env\nprint(1)\n", shebang.Options{})
	fmt.Println(err)
	fmt.Println(shebang.RejectionCarrier(err))
	// Output:
	// line 1: env selector names no executable; write e.g. #!/usr/bin/env python3
	// text("shell: line 1: env selector names no executable; write e.g. #!/usr/bin/env python3\n");
}

func ExamplePlan_Carrier() {
	p, _ := shebang.Translate("#!python3\nprint(1)", shebang.Options{})
	fmt.Println(p.Carrier(shebang.Retention{Retained: true, ScriptRef: "@shell/call_1"}))
	// Output:
	// const result = await tools.exec_command({"cmd":"shell python3 'print(1)'","login":false});
	// text(result !== null && typeof result === "object" ? JSON.stringify(Object.assign({}, result, {"retained":true,"script_ref":"@shell/call_1"})) : String(result));
}

func ExampleAnnotateExec() {
	out, changed := shebang.AnnotateExec("// @exec: {}\nawait tools.exec_command({cmd: \"ls\"});")
	fmt.Println(changed)
	fmt.Println(out)
	// Output:
	// true
	// // @exec: {}
	// text("exec: note: tools.exec_command is available through the shell tool: send the program itself (e.g. #!python3 or a bash script) with no JavaScript or quoting.\n");
	// await tools.exec_command({cmd: "ls"});
}

// A Markdown fence whose language names an interpreter runs as that
// program, with a note; the model's call is replayed as it sent it.
func ExampleTranslate_fence() {
	p, _ := shebang.Translate("```python\nprint(1)\n```", shebang.Options{})
	fmt.Println(p.Kind, p.Habit, p.Argv[0], p.Retainable)
	fmt.Printf("%q\n", p.Body)
	// Output:
	// recovered fence python3 false
	// "print(1)\n"
}

// A program wrapped in JSON is refused with one line that shows what to
// send instead.
func ExampleTranslate_jsonWrapper() {
	_, err := shebang.Translate("{\n  \"command\": [\"bash\", \"-lc\", \"ls -la\"]\n}\n", shebang.Options{})
	fmt.Println(shebang.RejectionCarrier(err))
	// Output: text("shell: line 1: shell takes the program itself, not JSON: send `ls -la` as the whole input, or a shebang line and the body\n");
}

func ExampleForeignSyntax() {
	for _, in := range []string{"*** Begin Patch\n*** Add File: a\n+a\n*** End Patch", "{ echo a; } > f", "--- a/x\n+++ b/x\n"} {
		habit, line := shebang.ForeignSyntax(in)
		fmt.Printf("%q %d\n", habit, line)
	}
	// Output:
	// "apply_patch" 1
	// "" 0
	// "diff" 1
}
