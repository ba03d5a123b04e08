package shebang

import (
	"strings"

	"hpatch-router/privname"
	"hpatch-router/rows"
	"hpatch-router/shebang/bashquote"
)

// PrivateCall is the plan of a worker carrier that runs one private
// command, argv (argv[0] a private command name), in the worker's Bash
// evaluation. It serves the router's own calls (the hpatch-write of a
// workspace edit), not model input: no habit, warning, direct command or
// retention applies, and the argv limits and quoting are those of every
// worker carrier.
func PrivateCall(argv []string) (*Plan, error) {
	if len(argv) == 0 || !privname.Is(argv[0]) {
		return nil, diag(0, "internal: a private call must name a private command")
	}
	var b strings.Builder
	for i, a := range argv {
		q, err := bashquote.Word(a)
		if err != nil {
			return nil, diag(0, "argument "+rows.OneLineSpaced(a)+" cannot be quoted for Bash ("+err.Error()+")")
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(q)
	}
	body := b.String()
	fields := []string{"bash"}
	if err := checkArgv(append(fields, body), 1); err != nil {
		return nil, err
	}
	wc, err := workerCommand(fields, body)
	if err != nil {
		return nil, err
	}
	if err := checkCmd(wc); err != nil {
		return nil, err
	}
	return &Plan{Kind: KindWorker, Interpreter: "bash", Body: body, Argv: append(fields, body), Cmd: wc, Args: renderArgs(wc, nil, false)}, nil
}

// OutputCarrier is the Code Mode JavaScript of a plan whose command prints
// the whole answer itself (PrivateCall): the command's output alone once
// it has exited, so the model reads the report or the one-line error as
// the command printed it. A result without an exit code (still running,
// A15) or not an object is printed as Carrier would print it.
func (p *Plan) OutputCarrier() string {
	var b strings.Builder
	b.WriteString("const result = await tools.exec_command(")
	b.Write(p.Args)
	b.WriteString(");\n")
	b.WriteString(`text(result !== null && typeof result === "object" ? (typeof result.exit_code === "number" && typeof result.output === "string" ? result.output : JSON.stringify(result)) : String(result));`)
	return b.String()
}
