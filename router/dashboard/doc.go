// Package dashboard is the router's live status page: it implements
// router.Observer, keeps a bounded record of recent shell calls and
// rejections with totals and hourly byte counts, and serves
//
//	GET /             a self-contained HTML page (embedded; no external assets)
//	GET /events       server-sent events: a "summary" first, then every "call" and "rejection" live
//	GET /api/summary  the same summary as JSON
//
// Script bodies are dropped unless the Dashboard is built with Bodies(true).
// Memory is bounded: a ring of recent events, a fixed number of hourly
// buckets, a capped number of live subscribers each with a bounded queue (a
// subscriber that falls behind is disconnected; EventSource reconnects and
// gets a fresh summary).
package dashboard
