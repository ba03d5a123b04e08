package router

import (
	"net/http"
	"strconv"
)

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
