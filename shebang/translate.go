package shebang

import (
	"fmt"
	"hpatch-router/rows"
	"hpatch-router/scriptref"
	"slices"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Options carries the request facts translation depends on.
type Options struct {
	// Params lists the exec_command arguments (without cmd) the request's
	// tool declaration defines, each with its type (ParseParamsShape). Nil
	// accepts any #!params key; non-nil rejects keys outside it, naming the
	// known ones, and values its type does not admit, naming the type.
	// When it holds "shell", direct and template carriers get
	// "shell":"bash" unless #!params names a shell.
	Params []Param
}

// Translate turns one shell input into a Plan, or rejects it with a
// *Diagnostic before anything runs (REQ-SHELL-001 A1–A8, A10, A12, A16).
// It does not handle `#!script=@shell/<id>` reruns: the caller detects them
// with scriptref.ScriptReference, resolves the id and translates the content.
func Translate(input string, opts Options) (*Plan, error) {
	if i := strings.IndexByte(input, 0); i >= 0 {
		return nil, diag(rows.At(input, i), "the input contains a NUL byte, which no argv value can carry; remove it")
	}
	if !utf8.ValidString(input) {
		return nil, diag(rows.At(input, invalidUTF8(input)), "the input is not valid UTF-8; send text")
	}
	if ref, ok := scriptref.Directive(input); ok {
		return nil, scriptDirectiveDiag(ref)
	}
	switch habit, line := shellForeignSyntax(input); habit {
	case HabitNone:
	case HabitFence:
		return translateFence(input, line, opts)
	default:
		return nil, foreignDiag(habit, line, input)
	}
	return translateHeader(input, opts)
}

// translate is Translate for an input that starts where its header does.
func translate(input string, opts Options) (*Plan, error) {
	h, err := parseHeader(input)
	if err != nil {
		return nil, err
	}
	var params []param
	if h.hasParams {
		if params, err = parseParams(h.params, h.paramsLine, opts.Params); err != nil {
			return nil, err
		}
	}
	body := input[h.bodyStart:]
	if h.fields == nil && !h.hasCmd && !h.hasParams && isCodeModeJS(input) {
		return &Plan{Kind: KindRecovered, Habit: HabitJavaScript, Script: input, Body: input, Warnings: jsWarnings(input)}, nil
	}
	p := &Plan{Body: body}
	fields := h.fields
	if fields == nil {
		fields = []string{"bash"} // no shebang: implicit Bash
	}
	argv := append(slices.Clip(fields), body)
	p.Interpreter = argv[0]
	if err := checkFields(h.fields); err != nil {
		return nil, err
	}
	if err := checkArgv(argv, h.bodyLine); err != nil {
		return nil, err
	}
	switch p.Interpreter {
	case "bash":
		p.Warnings = shellWarnings(body, syntax.LangBash)
	case "sh":
		if err := checkPOSIX(body, h.bodyLine); err != nil {
			return nil, err
		}
		p.Warnings = shellWarnings(body, syntax.LangPOSIX)
	}
	if h.hasCmd {
		p.Warnings = mergeWarnings(p.Warnings, shellWarnings(h.cmd, syntax.LangBash))
	}
	p.Warnings = append(bodyHeaderWarnings(input, h, p.Interpreter), p.Warnings...)
	p.Retainable = p.Interpreter != "bash" && p.Interpreter != "sh" || rows.Count(input) > 3

	direct, isDirect := "", false
	if h.fields == nil && !h.hasCmd && !h.hasParams {
		direct, isDirect = directCommand(body)
	}
	switch {
	case isDirect:
		p.Kind, p.Cmd = KindDirect, direct
	default:
		wc, err := workerCommand(fields, body)
		if err != nil {
			return nil, err
		}
		p.Kind, p.Argv, p.Cmd = KindWorker, argv, wc
		if h.hasCmd {
			tmpl, err := expandTemplate(h.cmd, h.cmdLine, wc)
			if err != nil {
				return nil, err
			}
			p.Kind, p.Cmd = KindTemplate, tmpl
		}
	}
	if err := checkCmd(p.Cmd); err != nil {
		return nil, err
	}
	// The worker evaluates bash and sh bodies in mvdan/sh; a direct command
	// runs in Codex's own shell, where no difference applies.
	if p.Kind != KindDirect && (p.Interpreter == "bash" || p.Interpreter == "sh") {
		lang := syntax.LangBash
		if p.Interpreter == "sh" {
			lang = syntax.LangPOSIX
		}
		p.Warnings = mergeWarnings(p.Warnings, bashDiffWarnings(body, lang))
	}
	// Direct commands and #!cmd= templates are the model's own Bash (A7):
	// pin bash when the request lets us and #!params chose no shell. The
	// worker command reads the same under every POSIX shell and is left to
	// the user's.
	pin := p.Kind != KindWorker && declares(opts.Params, shellParam) && !hasParam(params, shellParam)
	p.Args = renderArgs(p.Cmd, params, pin)
	if len(h.nearMiss) > 0 {
		p.recovered(HabitDirective, nearMissNotes(h.nearMiss)...)
	}
	return p, nil
}

// expandTemplate replaces the single {.} of a #!cmd= template with the
// quoted worker command; the template's other text is used as written.
func expandTemplate(tmpl string, line int, worker string) (string, error) {
	switch n := strings.Count(tmpl, "{.}"); {
	case n == 0:
		return "", diag(line, "#!cmd= template has no {.} placeholder; put {.} where the script's command goes, e.g. #!cmd=curl -fsSL URL | {.}")
	case n > 1:
		return "", diag(line, fmt.Sprintf("#!cmd= template has %d {.} placeholders; use exactly one", n))
	}
	return strings.Replace(tmpl, "{.}", worker, 1), nil
}

// checkPOSIX rejects Bash-only syntax in an sh body before it runs: the
// model chose POSIX semantics, and a Bash construct there is a mistake it
// can fix by choosing #!bash. Syntax that is malformed in Bash too is left
// to the worker, which reports it like any other parse error.
func checkPOSIX(body string, bodyLine int) error {
	_, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(body), "")
	if err == nil {
		return nil
	}
	if _, berr := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(body), ""); berr != nil {
		return nil
	}
	line := bodyLine
	msg := err.Error()
	var pos syntax.Pos
	switch e := err.(type) {
	case syntax.ParseError:
		pos, msg = e.Pos, e.Text
	case syntax.LangError:
		pos, msg = e.Pos, e.Error()
	}
	if pos.IsValid() {
		line = bodyLine + int(pos.Line()) - 1
		msg = strings.TrimPrefix(msg, pos.String()+": ")
	}
	return diag(line, fmt.Sprintf("sh selects POSIX syntax and this is Bash-only (%s); use #!bash or POSIX syntax", msg))
}

func mergeWarnings(a, b []string) []string {
	for _, w := range b {
		if !containsString(a, w) {
			a = append(a, w)
		}
	}
	return a
}

// invalidUTF8 is the offset of the first invalid byte.
func invalidUTF8(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return i
			}
		}
	}
	return len(s)
}
