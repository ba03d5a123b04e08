package router

import (
	"fmt"
	"net/http"
)

// Stable error codes the router itself returns. Codex shows the message to
// the user; scripts and tests match on the code, so codes never change
// meaning once published.
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
	// CodeShortBody: the request body ended before its declared length.
	CodeShortBody = "request_body_short"
)

// Error is an error the router answers itself, before or instead of
// forwarding. It carries the HTTP status and renders the OpenAI error shape
// Codex parses, so a rejected layout reaches the user as a readable message
// instead of a broken conversation.
type Error struct {
	Status  int    // HTTP status, e.g. 400
	Type    string // OpenAI error type, e.g. "invalid_request_error"
	Code    string // one of the Code* constants
	Message string // without the "hpatch-router: " prefix
}

// invalidRequest builds the 400 invalid_request_error used by the request
// rewrite.
func invalidRequest(code, format string, args ...any) *Error {
	return &Error{
		Status:  http.StatusBadRequest,
		Type:    "invalid_request_error",
		Code:    code,
		Message: fmt.Sprintf(format, args...),
	}
}

// Error implements error; the text is the message the client sees.
func (e *Error) Error() string { return "hpatch-router: " + e.Message }

// StatusCode is the HTTP status to answer with.
func (e *Error) StatusCode() int { return e.Status }

// Respond writes e as the answer to a request: its status, and Body as
// application/json.
func (e *Error) Respond(w http.ResponseWriter) { writeErrorBody(w, e.Status, e.Body()) }

// Body renders {"error":{"message":"hpatch-router: …","type":…,"code":…}}
// with a stable key order.
func (e *Error) Body() []byte {
	b := make([]byte, 0, len(e.Message)+96)
	b = append(b, `{"error":{"message":`...)
	b = appendJSONString(b, e.Error())
	b = append(b, `,"type":`...)
	b = appendJSONString(b, e.Type)
	b = append(b, `,"code":`...)
	b = appendJSONString(b, e.Code)
	return append(b, "}}"...)
}
