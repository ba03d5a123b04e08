package shebang

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"hpatch-router/rows"
)

// StdinMarker, as the first worker field, asks the worker to run the
// fields after it with the body as their standard input instead of as a
// script operand: the stdin form of a declared tool (ToolSpec.Stdin). The
// worker recognises it; nothing else writes it.
const StdinMarker = "<"

// ToolSpec is the preset a declared tool (DESIGN §12) applies to every
// call: what a shebang line and its directives would say, checked once
// when the tool file is loaded (CheckRun, CheckTemplate, CheckParams) and
// applied to each input by TranslateTool.
type ToolSpec struct {
	// Run are the interpreter fields as CheckRun returned them.
	Run []string
	// Stdin gives the input to the command on its standard input; false
	// passes it as a script on /dev/fd/N with that path appended.
	Stdin bool
	// Cmd is a #!cmd= template with exactly one {.}, or "".
	Cmd string
	// Params is a #!params= JSON object, or "".
	Params string
	// MaxInputBytes bounds an input (0: only the argv limit).
	MaxInputBytes int
}

// CheckRun applies the shebang selector rules (env and -S removed, the
// bash/sh basename normalized, an option or env assignment first refused)
// and the field rules to a tool's run list and returns the fields the
// worker gets. Errors carry no line: the caller names where run is.
func CheckRun(run []string) ([]string, error) {
	for i, f := range run {
		if f == "" {
			return nil, fmt.Errorf("run[%d] is empty; remove it, or name the program first, e.g. run = [\"python3\"]", i)
		}
	}
	f, err := selectorFields(slices.Clone(run))
	if err == nil {
		err = checkFields(f)
	}
	if err == nil && len(f) >= MaxArgv {
		err = diag(0, fmt.Sprintf("run has %d fields, over the limit of %d; pass fewer arguments", len(f), MaxArgv-1))
	}
	if err != nil {
		return nil, fmt.Errorf("run: %s", strings.TrimPrefix(err.Error(), "line 1: "))
	}
	return f, nil
}

// CheckTemplate applies the #!cmd= rule: exactly one {.}.
func CheckTemplate(cmd string) error {
	_, err := expandTemplate(cmd, 0, "")
	if err != nil {
		return fmt.Errorf("cmd: %s", strings.TrimPrefix(err.Error(), "#!cmd= "))
	}
	return nil
}

// CheckParams applies the #!params= rules that do not depend on a
// request (one JSON object, no cmd, login only false, a POSIX shell); the
// declared types are checked per request by TranslateTool.
func CheckParams(params string) error {
	_, err := parseParams(params, 0, nil)
	if err != nil {
		return fmt.Errorf("params: %s", strings.TrimPrefix(err.Error(), "#!params "))
	}
	return nil
}

// TranslateTool turns one input of a declared tool into a worker or
// template plan: the input is the body of a shell call whose shebang is
// spec.Run, with spec.Cmd and spec.Params as its directives. The input is
// never read for a header, habit or JavaScript and gets no A16 warnings;
// a tool's plan is never retained. A *Diagnostic rejects it before
// anything runs.
func TranslateTool(spec ToolSpec, input string, opts Options) (*Plan, error) {
	if i := strings.IndexByte(input, 0); i >= 0 {
		return nil, diag(rows.At(input, i), "the input contains a NUL byte, which no argv value can carry; remove it")
	}
	if !utf8.ValidString(input) {
		return nil, diag(rows.At(input, invalidUTF8(input)), "the input is not valid UTF-8; send text")
	}
	if spec.MaxInputBytes > 0 && len(input) > spec.MaxInputBytes {
		return nil, diag(0, fmt.Sprintf("the input is %d bytes, over this tool's limit of %d; send less or split it into several calls", len(input), spec.MaxInputBytes))
	}
	if len(spec.Run) == 0 {
		return nil, diag(0, "internal: the tool names no program to run")
	}
	fields := slices.Clip(spec.Run)
	if spec.Stdin {
		fields = append([]string{StdinMarker}, fields...)
	}
	argv := append(slices.Clip(fields), input)
	if err := checkArgv(argv, 1); err != nil {
		return nil, err
	}
	wc, err := workerCommand(fields, input)
	if err != nil {
		return nil, err
	}
	p := &Plan{Kind: KindWorker, Interpreter: spec.Run[0], Body: input, Argv: argv, Cmd: wc}
	if spec.Cmd != "" {
		if p.Cmd, err = expandTemplate(spec.Cmd, 0, wc); err != nil {
			return nil, err
		}
		p.Kind = KindTemplate
	}
	if err := checkCmd(p.Cmd); err != nil {
		return nil, err
	}
	var params []param
	if spec.Params != "" {
		if params, err = parseParams(spec.Params, 0, opts.Params); err != nil {
			return nil, err
		}
	}
	pin := p.Kind != KindWorker && declares(opts.Params, shellParam) && !hasParam(params, shellParam)
	p.Args = renderArgs(p.Cmd, params, pin)
	return p, nil
}
