package scriptref_test

import (
	"fmt"

	"hpatch-router/scriptref"
)

func ExampleScriptReference() {
	id, ok := scriptref.ScriptReference("#!script=@shell/call_7\n")
	fmt.Println(id, ok)
	// Output: call_7 true
}

func ExampleParseRef() {
	id, err := scriptref.ParseRef("@shell/call_7")
	fmt.Println(id, err, scriptref.FormatRef(id))
	_, err = scriptref.ParseRef("@shell/a b")
	fmt.Println(err)
	// Output:
	// call_7 <nil> @shell/call_7
	// reference "@shell/a b" is not a retained script: artifact id "a b" contains a blank or line break
}
