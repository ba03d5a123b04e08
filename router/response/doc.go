// Package response is the router's response stage: the rewrite of one
// upstream response, a stream event by event (Stream) or a whole JSON
// object (Session.RewriteOutput). A model `shell`, `hpatch` or declared
// tool call is replaced by an exec carrier (the model's item with its
// members set by sjson); every other event passes byte for byte unless
// its sequence_number has to move (A14). A Session holds one response's
// carriers by call_id, so a call seen twice gets one carrier, is
// translated, retained and recorded in the thread's state once.
//
// It owns the carriers' shapes it writes (PrintCarrier, ReportPrefix),
// the router's model tool names (ToolShell, ToolHPatch), the observer
// events a call makes (CallEvent, RejectionEvent, callRejection) and
// where a request's turn runs for a workspace hpatch call (Turn). What
// it uses of the router comes in Deps, each part as a small interface
// (Translator, Scripts, Runtime, Metrics, Observers) the router's own
// parts satisfy; it never imports router. The SSE framing is package
// sse's, the request's facts package request's, what a thread remembers
// package threadstate's, workspace confinement package workspace's.
package response
