// Package router is the HTTP proxy between Codex and the model API.
//
// It is a small proxy core with two hooks, as httputil.ReverseProxy is
// with Rewrite and ModifyResponse; here the hooks are named methods that
// call the stages directly, so a reader can follow them. The core
// (proxy*.go, type proxy) forwards a request, relays the answer and
// applies what the proxy itself must never do: forward a path outside
// /v1/ (paths are cleaned before routing, server.go), pass hop-by-hop
// headers or an upstream's Access-Control-* headers (proxy_headers.go),
// wait past the response start or stream idle timeouts, or hold more
// request body bytes in memory at once than MaxRequestMemory allows (503
// beyond it, request_read.go); every failure is counted, logged and
// answered by one rule (proxy_failed.go). Bytes the router does not mean
// to change pass through untouched (A14). Who may send requests at all is
// package access's rule; serve puts its Guard in front.
//
// The request hook, rewriteRequest, runs the request stages once per
// request; the response hook is package response's Session, once per
// upstream event (Stream.Handle, from relaySSE) or on a whole JSON output
// (RewriteOutput, from relayJSON). The stages are packages below the
// core: request (parse the body once, find the Code Mode exec owners,
// offer `shell`, `hpatch` and the declared tools), history (the model's
// history is the truth, DESIGN §8: what the request's input says of the
// calls the model was shown, held against what the thread remembers, and
// the edits that restore the model's original calls), response (replace
// the model's calls with exec carriers and record them) and, below them,
// threadstate (what a thread remembers: replay entries, written changes,
// their journals) and sse (event framing).
//
// A workspace hpatch call is resolved against the cwd and workspace roots
// of the request it answers (request.Parse reads it from the last
// environment_context item Codex wrote, never one a user or a tool pasted;
// turn_workspace.go adds the sandbox mode) by package workspace, which
// owns where a path may point; its carrier runs the private command
// hpatch-write through exec_command, so the write is Codex's, in its
// sandbox. The router never writes a workspace file.
//
// Files are named for what a request passes; serveResponses
// (server_responses.go) runs it in this order: request_head.go (read its
// thread id and encoding), thread_runtime.go (prepare the thread's
// runtime), request_read.go (read the body, bounded), the request hook
// rewriteRequest (request_hook.go: request.Parse, then
// history.Stage.Apply: put back the scripts a restart took, settle the
// staged changes whose calls ran or did not, bring the thread's scripts to
// the versions the request's history told the model, and return the edits
// that restore the carriers Codex echoes; then request.Rewriter.Rewrite,
// which sends them as pieces of the body with its own), proxy_forward.go
// (send it upstream), proxy_relay.go (relay the answer through the
// response hook; package sse reads the events, each with its exact bytes).
// A response session reaches the rest of the router only through
// response.Deps (the thread state store, translation, the scripts, the
// thread's runtime, metrics, observers, log), the history stage through
// the small interfaces of history.New. router.go builds the Router;
// thread_runtime.go also prepares, at start, the runtimes of the threads
// threadstate says were recent.
//
// Rules it applies but does not own come from their owners: thread ids
// from package ident, the #!params shape parser from package shebang, the
// script-reference grammar from package scriptref, workspace confinement
// from package workspace, what a thread remembers (and its journal's
// format and checks) from package threadstate. seams.go lists what the
// router calls through interfaces (the worker's runtime, retain's store,
// translation); the stages are called directly.
//
// Declared tools (tools.go, DESIGN §12): package registry says which
// tools are in service; a request takes the set once, package request
// offers each tool after shell and hpatch unless the request defines the
// name itself, and a call of one becomes a carrier through
// shebang.TranslateTool. The thread state
// keeps the model's item whatever its name, so a removed tool's old calls
// still replay.
package router
