package request

import "fmt"

// Stable codes of the layouts the request stage refuses. Codex shows the
// message to the user; scripts and tests match on the code, so codes
// never change meaning once published.
const (
	// CodeInvalidJSON: the request body is not a JSON object.
	CodeInvalidJSON = "invalid_json"
	// CodeUnsupportedToolLayout: exec is declared where the router cannot
	// own it (top-level tools, a dotted `functions.exec` entry).
	CodeUnsupportedToolLayout = "unsupported_tool_layout"
	// CodeDuplicateExecOwner: one definition set declares more than one
	// eligible Code Mode exec tool.
	CodeDuplicateExecOwner = "duplicate_exec_owner"
	// CodeToolNameConflict: a tool named like one the router injects
	// (`shell`, `hpatch`) already exists beside the owner.
	CodeToolNameConflict = "tool_name_conflict"
)

// Error is a request the stage refuses before anything is forwarded: the
// router answers it as a 400 invalid_request_error with Code.
type Error struct {
	Code    string // one of the Code* constants
	Message string
}

// Error implements error; the text is Message.
func (e *Error) Error() string { return e.Message }

// invalid builds the *Error of code with a formatted message.
func invalid(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}
