// Package request is the router's request stage: it reads a Responses
// request body once and rewrites it for the hpatch mode, as edits of the
// body's bytes.
//
// Parse validates the body and reads, in one walk of its input items,
// everything the stages after it need (parse.go): the additional_tools
// items and top-level tools the rewrite reads, the exec calls and tool
// outputs the history stage reads, and where the
// turn runs, from the environment_context item Codex itself wrote
// (env_context.go; a block a user or a tool pasted never counts, and its
// values are decoded as XML character data).
//
// Rewriter.Rewrite (rewrite.go) then runs the rewrite in stage order:
// find the Code Mode exec owners (owners.go), each additional_tools item
// analysed (analyze.go) once and remembered by its bytes (memo.go); refuse
// an owner whose container already defines a name the router injects
// (names.go); for an owner, trim
// the exec description of its exec_command section (owner_rewrite.go,
// exec_description.go) and inject `shell` and `hpatch` after it, then the
// declared tools the request offers (offer.go); and splice those edits,
// with the history stage's, into the body as pieces (edit.go). Bytes it
// does not mean to change pass through untouched (A14); what it encodes
// it encodes as Codex's serde_json does (jsonline.AppendSerdeString). A layout the
// router cannot own is an *Error (errors.go) that the router answers
// before anything is forwarded.
//
// The package knows nothing of HTTP, threads or the replay store: the
// router's request hook calls Parse, the history stage (package history,
// which returns the edits that restore the carriers Codex echoes) and
// Rewrite, in that order (router/server_responses.go).
package request
