package request_test

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/tidwall/gjson"

	"hpatch-router/router/request"
)

// A Responses-Lite request from Codex ≥0.147: exec lives in the functions
// namespace of an additional_tools input item. The rewrite injects shell
// and hpatch right after it and reports what the response side needs.
func ExampleRewriter_Rewrite() {
	body := []byte(`{"model":"m","input":[{"type":"additional_tools","id":"at_1","role":"developer","tools":[` +
		`{"type":"namespace","name":"functions","description":"","tools":[` +
		`{"type":"custom","name":"exec","description":"Run JavaScript, for example ` + "`await tools.exec_command(...)`" + `.\n\n` +
		"### `exec_command`\\n```ts\\ndeclare const tools: { exec_command(args: {\\n  cmd: string;\\n  workdir?: string;\\n}): Promise<unknown>; };\\n```" + `"},` +
		`{"type":"function","name":"wait","parameters":{}}]}]}]}`)
	req, err := request.Parse(body)
	if err != nil {
		panic(err)
	}
	rw := request.NewRewriter(0)
	pieces, info, err := rw.Rewrite(req, nil, nil)
	if err != nil {
		panic(err)
	}
	out := bytes.Join(pieces, nil)
	fmt.Println(info.Owned, info.Namespace, info.ParamNames(), info.Rewritten)
	fmt.Println(gjson.GetBytes(out, "input.0.tools.0.tools.#.name"))
	fmt.Printf("%q\n", gjson.GetBytes(out, "input.0.tools.0.tools.0.description").String())
	// Output:
	// true functions [workdir] 1
	// ["exec","shell","hpatch","wait"]
	// "Run JavaScript."
}

// Code Mode in the top-level tools list (a non-Lite model) is refused
// before anything is forwarded; the router answers it as a 400.
func ExampleRewriter_Rewrite_rejected() {
	req, err := request.Parse([]byte(`{"tools":[{"type":"custom","name":"exec"}],"input":[]}`))
	if err != nil {
		panic(err)
	}
	_, _, err = request.NewRewriter(0).Rewrite(req, nil, nil)
	var e *request.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code)
	}
	// Output:
	// unsupported_tool_layout
}
