package router

import "hpatch-router/shebang"

// translator is the part of package shebang the response rewrite uses. It
// is an interface so tests can pin carrier text and so the rewrite does not
// depend on how translation is spelled.
type translator interface {
	// Translate turns one shell input into a plan (errors: rejection).
	Translate(input string, paramsShape []string) (*shebang.Plan, error)
	// Carrier renders the exec JavaScript for a plan.
	Carrier(p *shebang.Plan, r shebang.Retention) string
	// Rejection renders the carrier that only prints why nothing ran.
	Rejection(err error) string
	// ScriptReference recognises a `#!script=@shell/<id>` rerun.
	ScriptReference(input string) (id string, ok bool)
	// AnnotateExec adds the one-time notice to model exec JavaScript that
	// calls tools.exec_command directly.
	AnnotateExec(js string) (string, bool)
}

// shebangTranslator is the production translator.
type shebangTranslator struct{}

func (shebangTranslator) Translate(input string, paramsShape []string) (*shebang.Plan, error) {
	if len(paramsShape) == 0 {
		paramsShape = nil // no recognized shape: accept any #!params key
	}
	return shebang.Translate(input, shebang.Options{ParamNames: paramsShape})
}

func (shebangTranslator) Carrier(p *shebang.Plan, r shebang.Retention) string { return p.Carrier(r) }

func (shebangTranslator) Rejection(err error) string { return shebang.RejectionCarrier(err) }

func (shebangTranslator) ScriptReference(input string) (string, bool) {
	return shebang.ScriptReference(input)
}

func (shebangTranslator) AnnotateExec(js string) (string, bool) { return shebang.AnnotateExec(js) }
