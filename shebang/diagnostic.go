package shebang

import (
	"strconv"
	"strings"

	"hpatch-router/rows"
)

// Diagnostic is why a shell input was rejected before anything ran. Line is
// the 1-based input line the problem is on, 0 when it concerns the whole
// input (e.g. the rendered command is too long).
type Diagnostic struct {
	Line int
	Msg  string
	// Habit is the foreign shape the input was refused for (issue 25),
	// HabitNone for every other mistake.
	Habit Habit
}

// Error renders the diagnostic as one line, "line N: what was wrong; what
// to do", without a tool prefix: the edge that shows it adds "shell: " (the
// router's carrier through RejectionCarrier, the translate CLI). Line
// breaks inside Msg are flattened so callers can rely on one line.
func (d *Diagnostic) Error() string {
	var b strings.Builder
	if d.Line > 0 {
		b.WriteString("line ")
		b.WriteString(strconv.Itoa(d.Line))
		b.WriteString(": ")
	}
	b.WriteString(rows.OneLineSpaced(d.Msg))
	return b.String()
}

func diag(line int, msg string) *Diagnostic { return &Diagnostic{Line: line, Msg: msg} }

// habitDiag refuses an input written in another tool's habit.
func habitDiag(h Habit, line int, msg string) *Diagnostic {
	return &Diagnostic{Line: line, Msg: msg, Habit: h}
}

// RejectionCarrier is the exec carrier for a rejected input: it runs nothing
// and only prints "shell: " and the error's one line, so the model reads
// why its call did not run in the same place it would have read the
// output. It is the edge that adds the prefix: errors never carry it.
func RejectionCarrier(err error) string { return ToolRejectionCarrier("shell", err) }

// ToolRejectionCarrier is RejectionCarrier for a call of the declared tool
// name (TranslateTool): the prefix names the tool the model called.
func ToolRejectionCarrier(name string, err error) string {
	msg := "rejected"
	if err != nil {
		msg = rows.OneLineSpaced(err.Error())
	}
	return textStatement(name + ": " + msg)
}
