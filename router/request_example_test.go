package router_test

import (
	"errors"
	"fmt"

	"github.com/tidwall/gjson"

	"hpatch-router/router"
)

// A Responses-Lite request from Codex ≥0.147: exec lives in the functions
// namespace of an additional_tools input item. The rewrite injects shell
// and hpatch right after it and reports what the response side needs.
func ExampleRewriteRequest() {
	body := []byte(`{"model":"m","input":[{"type":"additional_tools","id":"at_1","role":"developer","tools":[` +
		`{"type":"namespace","name":"functions","description":"","tools":[` +
		`{"type":"custom","name":"exec","description":"Run JavaScript, for example ` + "`await tools.exec_command(...)`" + `.\n\n` +
		"### `exec_command`\\n```ts\\ndeclare const tools: { exec_command(args: {\\n  cmd: string;\\n  workdir?: string;\\n}): Promise<unknown>; };\\n```" + `"},` +
		`{"type":"function","name":"wait","parameters":{}}]}]}]}`)
	out, info, err := router.RewriteRequest(body)
	if err != nil {
		panic(err)
	}
	fmt.Println(info.Owned, info.Namespace, info.ParamNames(), info.Rewritten)
	fmt.Println(gjson.GetBytes(out, "input.0.tools.0.tools.#.name"))
	fmt.Printf("%q\n", gjson.GetBytes(out, "input.0.tools.0.tools.0.description").String())
	// Output:
	// true functions [workdir] 1
	// ["exec","shell","hpatch","wait"]
	// "Run JavaScript."
}

// Code Mode in the top-level tools list (a non-Lite model) is rejected
// before anything is forwarded, with an OpenAI-shaped 400 body.
func ExampleRewriteRequest_rejected() {
	_, _, err := router.RewriteRequest([]byte(`{"tools":[{"type":"custom","name":"exec"}],"input":[]}`))
	var e *router.Error
	if errors.As(err, &e) {
		fmt.Println(e.StatusCode(), e.Code)
	}
	// Output:
	// 400 unsupported_tool_layout
}
