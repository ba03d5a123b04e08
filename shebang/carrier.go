package shebang

import (
	"strings"

	"hpatch-router/jsonline"
)

// Carrier is the Code Mode JavaScript the router sends as the `exec` call:
//
//	// @exec: {…}                 // only when ARGS ask for a budget (ExecPragma)
//	const result = await tools.exec_command(ARGS);
//	text("warning\n");            // one per warning (A16)
//	text(PROJECTION);
//
// The projection forwards the complete native exec_command result — exit
// code, or session_id while the process is still running (A15) — plus
// retained and, when retained, script_ref. Should Codex ever hand back a
// non-object (a plain string), it is printed unchanged rather than turned
// into "{}". Recovered JavaScript's carrier is the model's JavaScript with
// the recovery notice and the nested warnings printed first.
func (p *Plan) Carrier(r Retention) string {
	if p.Script != "" {
		var pre strings.Builder
		pre.WriteString(textStatement(recoveryNotice))
		pre.WriteByte('\n')
		for _, w := range p.Warnings {
			pre.WriteString(textStatement(w))
			pre.WriteByte('\n')
		}
		return insertAfterPragma(p.Script, pre.String())
	}
	var b strings.Builder
	b.Grow(len(p.Args) + 256)
	b.WriteString(ExecPragma(p.Args))
	b.WriteString("const result = await tools.exec_command(")
	b.Write(p.Args)
	b.WriteString(");\n")
	for _, w := range p.Warnings {
		b.WriteString(textStatement(w))
		b.WriteByte('\n')
	}
	b.WriteString(`text(result !== null && typeof result === "object" ? JSON.stringify(Object.assign({}, result, `)
	b.WriteString(r.meta())
	b.WriteString(carrierEnd)
	return b.String()
}

// carrierEnd ends a carrier that runs exec_command, after its meta.
const carrierEnd = `)) : String(result));`

// CarrierRetains reports whether carrier, as Plan.Carrier rendered it,
// told the model that its input is retained as ref.
func CarrierRetains(carrier, ref string) bool {
	return strings.HasSuffix(carrier, Retention{Retained: true, ScriptRef: ref}.meta()+carrierEnd)
}

// meta is the object merged over the result; it wins over equally named
// result fields so the model can rely on it.
func (r Retention) meta() string {
	if !r.Retained {
		return `{"retained":false}`
	}
	return `{"retained":true,"script_ref":` + jsonline.String(r.ScriptRef) + `}`
}

// textStatement prints msg and a line break in the carrier.
func textStatement(msg string) string {
	return "text(" + jsonline.String(msg+"\n") + ");"
}
