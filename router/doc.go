// Package router is the HTTP proxy between Codex and the model API.
//
// It owns the server and its upstream client, calls the request stage
// (package request: the body is parsed once with gjson, the Code Mode exec
// owner found, its exec_command section trimmed, the `shell` and `hpatch`
// tools injected), calls the response stage
// (package response: replace model `shell`/`hpatch` calls with exec
// carriers, event by event), and owns the restore of the model's original calls in later
// requests from the per-thread state that package threadstate keeps
// (replay entries, written changes, their journals). Bytes it does not mean to
// change pass through untouched (A14). It also
// owns what the proxy itself must never do: forward a path outside /v1/
// (paths are cleaned before routing), pass an upstream's Access-Control-*
// headers to a client, or hold more request body bytes in memory at once
// than MaxRequestMemory allows (503 beyond it). Who may send requests at
// all is package access's rule; serve puts its Guard in front.
//
// A workspace hpatch call is resolved against the cwd and workspace roots
// of the request it answers (request.Parse reads it from the last
// environment_context item Codex wrote, never one a user or a tool pasted;
// turn_workspace.go adds the sandbox mode) by package workspace, which owns where a path may
// point; its carrier runs the private command hpatch-write through
// exec_command, so the write is Codex's, in its sandbox. The router never
// writes a workspace file.
//
// Files are named for the stages a request passes; serveResponses
// (server_responses.go) runs them in this order. The request:
// thread_runtime.go (prepare the thread's runtime), request_read.go (read
// the body, bounded), then the request hook rewriteRequest: request.Parse
// (parse it once, package request), history.Stage.Apply (package history:
// put back the scripts a restart took, settle the staged changes whose
// calls ran or did not, bring the thread's scripts to the versions the
// request's history told the model, DESIGN §8, and return the edits that
// restore the carriers Codex echoes) and request.Rewriter.Rewrite (find
// the exec owners and rewrite, as pieces of the body with the history
// stage's edits); then proxy.go (forward). The response: package sse
// (read the upstream's events, each with its exact bytes, and render the
// ones the rewrite makes), server_relay.go (relaySSE, relayJSON: write a
// stream or a whole response to the client) and package response (its
// Session rewrites each event or the whole output, makes the carriers and
// records them in the thread's state); a session reaches the rest of the
// router only through response.Deps (the thread state store, translation,
// the scripts, the thread's runtime, metrics, observers, log).
// thread_runtime.go also prepares, at start, the runtimes of the threads
// threadstate says were recent.
//
// Rules it applies but does not own come from their owners: thread ids
// from package ident, the #!params shape parser and the script-reference
// grammar from package shebang, workspace confinement from package
// workspace, what a thread remembers (and its journal's format and
// checks) from package threadstate. seams.go lists what the router calls
// through interfaces (the worker's runtime, retain's store, translation);
// the request stage is called directly.
//
// Declared tools (tools.go, DESIGN §12): package registry says which
// tools are in service; a request takes the set once, package request
// offers each tool after shell and hpatch unless the request defines the
// name itself, and a call of one becomes a carrier through
// shebang.TranslateTool. The thread state
// keeps the model's item whatever its name, so a removed tool's old calls
// still replay.
package router
