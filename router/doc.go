// Package router is the HTTP proxy between Codex and the model API.
//
// It owns the server and its upstream client, the request rewrite (find the
// Code Mode exec owner, trim its exec_command section, inject the `shell`
// and `hpatch` tools), the streaming SSE and JSON response rewrite (replace
// model `shell`/`hpatch` calls with exec carriers), and the durable per-thread
// replay store that restores the model's original calls in later requests.
// Bytes it does not mean to change pass through untouched (A14).
package router
