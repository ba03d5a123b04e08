// Package dashboard is the router's live status page: it implements
// router.Observer, keeps a bounded record of recent shell calls and
// rejections with totals and hourly byte counts, and serves
//
//	GET /             a self-contained HTML page (embedded; no external assets)
//	GET /events       server-sent events: a "summary" first, then every "call" and "rejection" live
//	GET /api/summary  the same summary as JSON
//
// Nothing of a script is shown unless the Dashboard is built with
// Bodies(true): no body, no rejection diagnostic (it may quote a script
// line; the router passes a script-free reason instead) and, from the
// router, only an interpreter's basename. A rejected call is one
// rejection, not also a call. The handler does not check who asks: serve
// mounts it behind package access.
// Memory is bounded: a ring of recent events, a fixed number of hourly
// buckets, a capped number of live subscribers each with a bounded queue (a
// subscriber that falls behind is disconnected; EventSource reconnects and
// gets a fresh summary).
package dashboard
