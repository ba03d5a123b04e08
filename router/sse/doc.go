// Package sse is the server-sent event framing the router's response
// stage reads and writes: Reader splits an upstream byte stream into
// events (lines end in LF or CRLF; `event:` and `data:` fields are read,
// comments, `id:` and `retry:` are kept only in the raw bytes), keeps
// each event's exact bytes so an event nobody changes passes byte for
// byte (A14), and bounds the size of one event (ErrEventTooLarge). Append
// renders an event that was made or changed. Pool reuses readers across
// responses.
//
// It knows nothing of the Responses API or the rewrite: what an event
// means is the router's. It imports only the standard library.
package sse
