package router

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"hpatch-router/jsonline"
	"hpatch-router/router/history"
	"hpatch-router/router/request"
)

// Stable error codes the router itself returns (the request stage's are
// package request's Code* constants). Codex shows the message to the
// user; scripts and tests match on the code, so codes never change
// meaning once published.
const (
	// codeShortBody: the request body ended before its declared length.
	codeShortBody = "request_body_short"
)

// Error is an error the router answers itself, before or instead of
// forwarding. It carries the HTTP status and renders the OpenAI error shape
// Codex parses, so a rejected layout reaches the user as a readable message
// instead of a broken conversation.
type Error struct {
	Status  int    // HTTP status, e.g. 400
	Type    string // OpenAI error type, e.g. "invalid_request_error"
	Code    string // one of the Code* constants, here or in package request
	Message string // without the "hpatch-router: " prefix
}

// invalidRequest builds the 400 invalid_request_error the router answers
// for a request it refuses, such as one the request stage refuses
// (requestError).
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
	b = jsonline.AppendSerdeString(b, e.Error())
	b = append(b, `,"type":`...)
	b = jsonline.AppendSerdeString(b, e.Type)
	b = append(b, `,"code":`...)
	b = jsonline.AppendSerdeString(b, e.Code)
	return append(b, "}}"...)
}

// requestError is err as the router answers it: the request stage's
// *request.Error is a 400 invalid_request_error with its code, the
// history stage's *history.MismatchError a 409; an *Error is itself; any other error is a 400 invalid_request.
func requestError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var mismatch *history.MismatchError
	if errors.As(err, &mismatch) {
		return &Error{Status: http.StatusConflict, Type: "invalid_request_error", Code: history.CodeReplayMismatch, Message: mismatch.Error()}
	}
	var re *request.Error
	if errors.As(err, &re) {
		return invalidRequest(re.Code, "%s", re.Message)
	}
	return invalidRequest("invalid_request", "%s", err.Error())
}

// writeRouterError answers with an OpenAI-shaped error produced by the
// router itself (upstream errors are relayed as they are, never rewritten).
func writeRouterError(w http.ResponseWriter, status int, typ, code, msg string) {
	(&Error{Status: status, Type: typ, Code: code, Message: msg}).Respond(w)
}

func writeErrorBody(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
