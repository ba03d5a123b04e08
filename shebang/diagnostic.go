package shebang

import (
	"errors"
	"strconv"
	"strings"
)

// Diagnostic is why a shell input was rejected before anything ran. Line is
// the 1-based input line the problem is on, 0 when it concerns the whole
// input (e.g. the rendered command is too long).
type Diagnostic struct {
	Line int
	Msg  string
}

// Error renders the diagnostic as the single line the model reads:
// "shell: line N: what was wrong; what to do". Line breaks inside Msg are
// flattened so callers can rely on one line (the translate CLI prints it to
// stderr, the router wraps it in a carrier).
func (d *Diagnostic) Error() string {
	var b strings.Builder
	b.WriteString("shell: ")
	if d.Line > 0 {
		b.WriteString("line ")
		b.WriteString(strconv.Itoa(d.Line))
		b.WriteString(": ")
	}
	b.WriteString(oneLine(d.Msg))
	return b.String()
}

func diag(line int, msg string) *Diagnostic { return &Diagnostic{Line: line, Msg: msg} }

// oneLine replaces line terminators so a message can never span lines.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// RejectionCarrier is the exec carrier for a rejected input: it runs nothing
// and only prints the diagnostic, so the model reads why its call did not
// run in the same place it would have read the output. Errors that are not
// a *Diagnostic are printed with the same "shell: " prefix.
func RejectionCarrier(err error) string {
	msg := "shell: rejected"
	var d *Diagnostic
	switch {
	case errors.As(err, &d):
		msg = d.Error()
	case err != nil:
		msg = oneLine(err.Error())
		if !strings.HasPrefix(msg, "shell: ") {
			msg = "shell: " + msg
		}
	}
	return textStatement(msg)
}
