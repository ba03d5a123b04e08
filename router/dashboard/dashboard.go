package dashboard

import (
	"log/slog"
	"sort"
	"sync"
	"time"

	"hpatch-router/router/response"
)

// Defaults for the bounds set by Options.
const (
	DefaultRecent      = 200 // recent calls and, separately, recent rejections kept
	DefaultHours       = 48  // hourly buckets kept
	DefaultSubscribers = 16  // live /events connections at once
	DefaultQueue       = 256 // events queued per subscriber before it is dropped
	maxBodyBytes       = 64 << 10
	maxFieldBytes      = 512
	maxWarnings        = 16
	maxKinds           = 16
)

// Option configures a Dashboard.
type Option func(*Dashboard)

// Bodies shows script bodies (CallEvent.Body) on the page. Off by default.
func Bodies(on bool) Option { return func(d *Dashboard) { d.bodies = on } }

// Recent sets how many recent calls and rejections are kept (each).
func Recent(n int) Option {
	return func(d *Dashboard) {
		if n > 0 {
			d.recent = n
		}
	}
}

// Hours sets how many hourly buckets are kept.
func Hours(n int) Option {
	return func(d *Dashboard) {
		if n > 0 {
			d.hours = n
		}
	}
}

// Subscribers caps the live /events connections.
func Subscribers(n int) Option {
	return func(d *Dashboard) {
		if n > 0 {
			d.maxSubs = n
		}
	}
}

// Queue sets each subscriber's event queue length.
func Queue(n int) Option {
	return func(d *Dashboard) {
		if n > 0 {
			d.queue = n
		}
	}
}

// Clock replaces time.Now (tests).
func Clock(now func() time.Time) Option { return func(d *Dashboard) { d.now = now } }

// Logger sets the logger (default slog.Default()).
func Logger(l *slog.Logger) Option { return func(d *Dashboard) { d.log = l } }

// KeepAlive sets the interval of SSE comment pings (default 15s).
func KeepAlive(every time.Duration) Option {
	return func(d *Dashboard) {
		if every > 0 {
			d.keepAlive = every
		}
	}
}

// Call is one shell call as the page shows it.
type Call struct {
	Seq          uint64    `json:"seq"`
	Time         time.Time `json:"time"`
	Thread       string    `json:"thread"`
	CallID       string    `json:"call_id"`
	Kind         string    `json:"kind"`
	Tool         string    `json:"tool,omitempty"` // a declared tool's name; "" for shell
	Interpreter  string    `json:"interpreter"`
	DurationMS   float64   `json:"duration_ms"`
	Warnings     []string  `json:"warnings"`
	ScriptRef    string    `json:"script_ref,omitempty"`
	ModelBytes   int       `json:"model_bytes"`
	CarrierBytes int       `json:"carrier_bytes"`
	Body         string    `json:"body,omitempty"`
}

// Rejection is one rejection as the page shows it. Reason never quotes a
// script; Detail, the whole diagnostic, is only kept with Bodies(true).
type Rejection struct {
	Seq    uint64    `json:"seq"`
	Time   time.Time `json:"time"`
	Thread string    `json:"thread"`
	CallID string    `json:"call_id,omitempty"`
	Code   string    `json:"code"`
	Reason string    `json:"reason"`
	Detail string    `json:"detail,omitempty"`
}

// Totals counts everything since the dashboard started.
type Totals struct {
	Calls        int            `json:"calls"`
	Rejections   int            `json:"rejections"`
	Warnings     int            `json:"warnings"`
	Retained     int            `json:"retained"`
	ModelBytes   int64          `json:"model_bytes"`
	CarrierBytes int64          `json:"carrier_bytes"`
	ByKind       map[string]int `json:"by_kind"`
	ByTool       map[string]int `json:"by_tool"` // calls of declared tools
}

// Hour is one hourly bucket of the byte chart.
type Hour struct {
	Start        time.Time `json:"start"`
	Calls        int       `json:"calls"`
	ModelBytes   int64     `json:"model_bytes"`
	CarrierBytes int64     `json:"carrier_bytes"`
}

// Summary is GET /api/summary and the first SSE event.
type Summary struct {
	Started          time.Time   `json:"started"`
	Now              time.Time   `json:"now"`
	Bodies           bool        `json:"bodies"`
	Seq              uint64      `json:"seq"`
	Totals           Totals      `json:"totals"`
	Hours            []Hour      `json:"hours"`             // oldest first
	RecentCalls      []Call      `json:"recent_calls"`      // newest first
	RecentRejections []Rejection `json:"recent_rejections"` // newest first
	Tools            *ToolsState `json:"tools,omitempty"`
}

// Dashboard records router events and serves them. Build it with New.
type Dashboard struct {
	bodies    bool
	recent    int
	hours     int
	maxSubs   int
	queue     int
	keepAlive time.Duration
	now       func() time.Time
	log       *slog.Logger
	tools     func() ToolsState

	mu      sync.Mutex
	started time.Time
	seq     uint64
	calls   ring[Call]
	rejs    ring[Rejection]
	totals  Totals
	buckets []Hour // oldest first, at most hours
	subs    map[*subscriber]struct{}
	closed  bool
}

// New builds a Dashboard.
func New(opts ...Option) *Dashboard {
	d := &Dashboard{
		recent: DefaultRecent, hours: DefaultHours, maxSubs: DefaultSubscribers,
		queue: DefaultQueue, keepAlive: 15 * time.Second, now: time.Now,
	}
	for _, o := range opts {
		o(d)
	}
	if d.log == nil {
		d.log = slog.Default()
	}
	d.started = d.now()
	d.calls = newRing[Call](d.recent)
	d.rejs = newRing[Rejection](d.recent)
	d.totals.ByKind = map[string]int{}
	d.totals.ByTool = map[string]int{}
	d.subs = map[*subscriber]struct{}{}
	return d
}

// ShellCall implements router.Observer: it records a shell call.
func (d *Dashboard) ShellCall(e response.CallEvent) {
	c := Call{
		Time: e.Time, Thread: clip(e.Thread, maxFieldBytes), CallID: clip(e.CallID, maxFieldBytes),
		Kind: clip(e.Kind, 32), Tool: clip(e.Tool, 64), Interpreter: clip(e.Interpreter, 128),
		DurationMS:   float64(e.Duration.Microseconds()) / 1000,
		ScriptRef:    clip(e.ScriptRef, maxFieldBytes),
		ModelBytes:   max(e.ModelBytes, 0),
		CarrierBytes: max(e.CarrierBytes, 0),
		Warnings:     []string{},
	}
	if c.Time.IsZero() {
		c.Time = d.now()
	}
	for i, w := range e.Warnings {
		if i == maxWarnings {
			break
		}
		c.Warnings = append(c.Warnings, clip(w, maxFieldBytes))
	}
	if d.bodies {
		c.Body = clip(e.Body, maxBodyBytes)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.seq++
	c.Seq = d.seq
	d.calls.push(c)
	t := &d.totals
	t.Calls++
	t.Warnings += len(e.Warnings)
	if c.ScriptRef != "" {
		t.Retained++
	}
	t.ModelBytes += int64(c.ModelBytes)
	t.CarrierBytes += int64(c.CarrierBytes)
	kind := c.Kind
	if _, ok := t.ByKind[kind]; !ok && len(t.ByKind) >= maxKinds {
		kind = "other"
	}
	t.ByKind[kind]++
	t.countTool(c.Tool)
	h := d.bucket(c.Time)
	if h != nil {
		h.Calls++
		h.ModelBytes += int64(c.ModelBytes)
		h.CarrierBytes += int64(c.CarrierBytes)
	}
	d.publish("call", callMessage{Call: c, Totals: d.totalsCopy(), Hour: copyHour(h)})
}

// Rejection implements router.Observer: it records a refusal.
func (d *Dashboard) Rejection(e response.RejectionEvent) {
	r := Rejection{Time: e.Time, Thread: clip(e.Thread, maxFieldBytes), CallID: clip(e.CallID, maxFieldBytes),
		Code: clip(e.Code, 64), Reason: clip(e.Reason, 2*maxFieldBytes)}
	if d.bodies {
		r.Detail = clip(e.Detail, 2*maxFieldBytes)
	}
	if r.Time.IsZero() {
		r.Time = d.now()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.seq++
	r.Seq = d.seq
	d.rejs.push(r)
	d.totals.Rejections++
	d.publish("rejection", rejectionMessage{Rejection: r, Totals: d.totalsCopy()})
}

// callMessage and rejectionMessage are the data of live SSE events.
type callMessage struct {
	Call   Call   `json:"call"`
	Totals Totals `json:"totals"`
	Hour   *Hour  `json:"hour,omitempty"`
}

type rejectionMessage struct {
	Rejection Rejection `json:"rejection"`
	Totals    Totals    `json:"totals"`
}

// Summary returns a snapshot of everything the dashboard holds.
func (d *Dashboard) Summary() Summary {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.summaryLocked()
}

func (d *Dashboard) summaryLocked() Summary {
	return Summary{
		Started: d.started, Now: d.now(), Bodies: d.bodies, Seq: d.seq,
		Totals:           d.totalsCopy(),
		Hours:            append([]Hour{}, d.buckets...),
		RecentCalls:      d.calls.newestFirst(),
		RecentRejections: d.rejs.newestFirst(),
		Tools:            d.toolsState(),
	}
}

func (d *Dashboard) totalsCopy() Totals {
	t := d.totals
	t.ByKind = make(map[string]int, len(d.totals.ByKind))
	for k, v := range d.totals.ByKind {
		t.ByKind[k] = v
	}
	t.ByTool = make(map[string]int, len(d.totals.ByTool))
	for k, v := range d.totals.ByTool {
		t.ByTool[k] = v
	}
	return t
}

// bucket returns the hourly bucket of t, creating it (and dropping the
// oldest beyond the bound); nil when t is older than every kept bucket.
func (d *Dashboard) bucket(t time.Time) *Hour {
	start := t.UTC().Truncate(time.Hour)
	i := sort.Search(len(d.buckets), func(i int) bool { return !d.buckets[i].Start.Before(start) })
	if i < len(d.buckets) && d.buckets[i].Start.Equal(start) {
		return &d.buckets[i]
	}
	if i == 0 && len(d.buckets) >= d.hours {
		return nil
	}
	d.buckets = append(d.buckets, Hour{})
	copy(d.buckets[i+1:], d.buckets[i:])
	d.buckets[i] = Hour{Start: start}
	if len(d.buckets) > d.hours {
		d.buckets = append(d.buckets[:0], d.buckets[1:]...)
		i--
	}
	return &d.buckets[i]
}

func copyHour(h *Hour) *Hour {
	if h == nil {
		return nil
	}
	c := *h
	return &c
}

// clip bounds s to n bytes without splitting a UTF-8 sequence.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// ring keeps the last n values pushed.
type ring[T any] struct {
	buf  []T
	next int
	full bool
}

func newRing[T any](n int) ring[T] { return ring[T]{buf: make([]T, n)} }

func (r *ring[T]) push(v T) {
	r.buf[r.next] = v
	r.next++
	if r.next == len(r.buf) {
		r.next, r.full = 0, true
	}
}

func (r *ring[T]) newestFirst() []T {
	n := r.next
	if r.full {
		n = len(r.buf)
	}
	out := make([]T, 0, n)
	for i := 1; i <= n; i++ {
		out = append(out, r.buf[(r.next-i+len(r.buf))%len(r.buf)])
	}
	return out
}
