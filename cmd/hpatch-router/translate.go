package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"hpatch-router/ident"
	"hpatch-router/scriptref"
	"hpatch-router/shebang"
)

const translateHelp = `Usage: hpatch-router translate [flags] < INPUT

Reads one shell tool input on stdin and prints, as one JSON object, what the
router would send Codex for it:

  kind         direct | worker | template | recovered
  habit        for recovered: javascript, fence, blank_line or directive
  interpreter  "bash", "sh", or the interpreter as written ("python3", …)
  argv         the argv after the word shell (omitted when the command is
               direct and for recovered JavaScript)
  cmd          the exec_command cmd string
  args         the exec_command argument object
  carrier      the Code Mode JavaScript sent as the exec call
  retained     true when the input is retention-eligible and --call-id is a
               valid artifact id (what the router does; nothing is stored)
  script_ref   "@shell/<call-id>" when retained, else ""
  warnings     notices printed before the result (always an array)

A rejected input exits 1 with nothing on stdout and one line on stderr that
starts with "shell: ". Bad flags exit 2.

--params-shape FILE names the exec_command arguments #!params may use. FILE
holds exec_command's declaration as Codex writes it in the exec tool
description, read by the router's own parser: the TypeScript
exec_command(args: { … }) declaration, or a Markdown bullet list of
parameters that includes cmd; cmd itself is never a #!params key. Without
it any #!params key is accepted.

--tool NAME translates the input as a call of the declared tool NAME from
the tools directory (--tools-dir, default the router's): the input is the
tool's script or standard input, never read for a shebang or directives.
A rejection then starts with "NAME: ".

A #!script=@shell/<id> rerun needs the router's script store; pipe the
script's content instead.

Flags:
`

// translateOutput is the stable JSON contract of `hpatch-router translate`;
// the acceptance suite drives it, so fields are only ever added.
type translateOutput struct {
	Kind        shebang.Kind    `json:"kind"`
	Habit       shebang.Habit   `json:"habit,omitempty"`
	Interpreter string          `json:"interpreter"`
	Argv        []string        `json:"argv,omitempty"`
	Cmd         string          `json:"cmd"`
	Args        json.RawMessage `json:"args"`
	Carrier     string          `json:"carrier"`
	Retained    bool            `json:"retained"`
	ScriptRef   string          `json:"script_ref"`
	Warnings    []string        `json:"warnings"`
}

// runTranslate is `hpatch-router translate`: stdin in, one JSON object out.
func runTranslate(_ context.Context, args []string, s stdio) int {
	fs := pflag.NewFlagSet("translate", pflag.ContinueOnError)
	callID := fs.String("call-id", "call_cli", "the model's call_id; the retained script's id")
	shapeFile := fs.String("params-shape", "", "file with the exec_command declaration whose arguments #!params may use")
	retain := fs.Bool("retain", true, "report retention as the router would; --retain=false reports retained:false")
	toolName := fs.String("tool", "", "translate the input as a call of this declared tool (see hpatch-router tools)")
	toolsDir := fs.String("tools-dir", "", "tools directory for --tool (default: the router's, $XDG_CONFIG_HOME/hpatch-router/tools)")
	if code, done := parseFlags(fs, args, translateHelp, s); done {
		return code
	}
	var opts shebang.Options
	if *shapeFile != "" {
		text, err := os.ReadFile(*shapeFile)
		if err != nil {
			fmt.Fprintf(s.err, "hpatch-router translate: --params-shape: %v\n", err)
			return 2
		}
		if opts.Params = shebang.ParseParamsShape(string(text)).Params; opts.Params == nil {
			fmt.Fprintf(s.err, "hpatch-router translate: --params-shape %s: no exec_command arguments besides cmd found; give the exec_command(args: { … }) declaration or a bullet list that includes cmd\n", *shapeFile)
			return 2
		}
	}
	in, err := io.ReadAll(s.in)
	if err != nil {
		fmt.Fprintf(s.err, "hpatch-router translate: reading stdin: %v\n", err)
		return 1
	}
	input := string(in)
	if *toolName != "" {
		return translateTool(*toolName, *toolsDir, input, opts, s)
	}
	if id, ok := scriptref.ScriptReference(input); ok {
		fmt.Fprintf(s.err, "shell: #!script=@shell/%s reruns a retained script, which only the router can resolve; pipe the script's content to translate instead\n", id)
		return 1
	}
	plan, err := shebang.Translate(input, opts)
	if err != nil {
		fmt.Fprintln(s.err, "shell: "+err.Error())
		return 1
	}
	var r shebang.Retention
	if *retain && plan.Retainable && ident.Artifact(*callID) == nil {
		r = shebang.Retention{Retained: true, ScriptRef: scriptref.FormatRef(*callID)}
	}
	return writeTranslation(plan, r, s)
}

// writeTranslation prints plan as translate's one JSON object.
func writeTranslation(plan *shebang.Plan, r shebang.Retention, s stdio) int {
	out := translateOutput{
		Kind: plan.Kind, Habit: plan.Habit, Interpreter: plan.Interpreter, Argv: plan.Argv,
		Cmd: plan.Cmd, Args: plan.Args, Carrier: plan.Carrier(r),
		Retained: r.Retained, ScriptRef: r.ScriptRef, Warnings: plan.Warnings,
	}
	if out.Args == nil {
		out.Args = json.RawMessage("null")
	}
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	enc := json.NewEncoder(s.out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintf(s.err, "hpatch-router translate: writing stdout: %v\n", err)
		return 1
	}
	return 0
}
