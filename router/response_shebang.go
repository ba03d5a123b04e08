package router

import (
	"errors"

	"hpatch-router/shebang"
)

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

// errNoTranslator is returned until package shebang provides Translate.
var errNoTranslator = errors.New("shell: translation is not available in this build")

func (shebangTranslator) Translate(input string, paramsShape []string) (*shebang.Plan, error) {
	return nil, errNoTranslator
}

func (shebangTranslator) Carrier(p *shebang.Plan, r shebang.Retention) string {
	return shebang.RejectionCarrier(errNoTranslator)
}

func (shebangTranslator) Rejection(err error) string { return shebang.RejectionCarrier(err) }

func (shebangTranslator) ScriptReference(string) (string, bool) { return "", false }

func (shebangTranslator) AnnotateExec(js string) (string, bool) { return js, false }
