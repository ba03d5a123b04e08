package router

import (
	"fmt"
	"io"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// metrics is the router's Prometheus registry, written by hand in the text
// exposition format (no client library). Label values the model controls
// (the interpreter) are sanitized and capped in number.
type metrics struct {
	mu           sync.Mutex
	counters     map[counterKey]uint64
	interpreters map[string]bool
	buckets      []float64 // upper bounds in seconds
	counts       []uint64  // per bucket (not cumulative), +Inf last
	sum          float64
	total        uint64
	gauges       []gaugeDef // registered once, before serving
}

// gaugeDef is a gauge read when /metrics is written.
type gaugeDef struct {
	name, help string
	value      func() int64
}

// counterKey is one counter: its name and up to two labels (unused pairs
// are empty). The labels' text is rendered only when /metrics is written,
// so counting costs no string building.
type counterKey struct {
	name   string
	labels [2]labelPair
}

type labelPair struct{ k, v string }

// labelText is the counter's labels in the exposition format, "" for none.
func (c counterKey) labelText() string {
	var s string
	for _, l := range c.labels {
		if l.k == "" {
			break
		}
		if s != "" {
			s += ","
		}
		s += label(l.k, l.v)
	}
	return s
}

// maxInterpreterLabels caps the distinct interpreter label values; later
// ones are counted as "other".
const maxInterpreterLabels = 32

type counterDef struct {
	name, help string
	labelled   bool
}

// counterDefs lists every counter in output order.
func counterDefs() []counterDef {
	return []counterDef{
		{"hpatch_router_requests_total", "Requests received, by route.", true},
		{"hpatch_router_request_rewrites_total", "Requests whose Code Mode exec owner was rewritten.", false},
		{"hpatch_router_carriers_total", "Exec carriers emitted in place of model calls.", false},
		{"hpatch_router_shell_calls_total", "Translated shell calls, by plan kind and interpreter.", true},
		{"hpatch_router_hpatch_calls_total", "hpatch edit calls.", false},
		{"hpatch_router_committed_changes_total", "Staged retentions and edits written because their calls ran.", false},
		{"hpatch_router_restored_scripts_total", "Retained scripts put back from the journal after a restart.", false},
		{"hpatch_router_exec_annotations_total", "Model exec calls annotated for calling tools.exec_command directly.", false},
		{"hpatch_router_tool_calls_total", "Calls of declared tools, by tool.", true},
		{"hpatch_router_tools_reloads_total", "Loads of the tools directory, by outcome (ok, invalid).", true},
		{"hpatch_router_rejections_total", "Calls answered with a diagnostic carrier, by reason.", true},
		{"hpatch_router_warnings_total", "Shell warnings placed in carriers.", false},
		{"hpatch_router_replay_total", "Replay outcomes (restored, mismatch, store_error, resent: a call sent again got the carrier sent before, unrestorable: a router carrier echoed with no journal entry).", true},
		{"hpatch_router_faults_total", "Faults and early ends, by kind.", true},
		{"hpatch_router_errors_total", "Error responses the router answered itself, by code.", true},
	}
}

func newMetrics() *metrics {
	b := []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120}
	return &metrics{
		counters:     map[counterKey]uint64{},
		interpreters: map[string]bool{},
		buckets:      b,
		counts:       make([]uint64, len(b)+1),
	}
}

// gauge registers a gauge; call it before the router serves.
func (m *metrics) gauge(name, help string, value func() int64) {
	m.gauges = append(m.gauges, gaugeDef{name, help, value})
}

func (m *metrics) add(name string, n uint64, labels ...labelPair) {
	k := counterKey{name: name}
	copy(k.labels[:], labels)
	m.mu.Lock()
	m.counters[k] += n
	m.mu.Unlock()
}

// label renders one Prometheus label, its value quoted as %q quotes it
// (strconv.Quote, without fmt's cost on every request).
func label(k, v string) string { return k + "=" + strconv.Quote(v) }

func (m *metrics) request(route string) {
	m.add("hpatch_router_requests_total", 1, labelPair{"route", route})
}
func (m *metrics) rewrite()    { m.add("hpatch_router_request_rewrites_total", 1) }
func (m *metrics) Carrier()    { m.add("hpatch_router_carriers_total", 1) }
func (m *metrics) HpatchCall() { m.add("hpatch_router_hpatch_calls_total", 1) }
func (m *metrics) ToolCall(name string) {
	m.add("hpatch_router_tool_calls_total", 1, labelPair{"tool", name})
}
func (m *metrics) ExecAnnotated() { m.add("hpatch_router_exec_annotations_total", 1) }
func (m *metrics) Rejection(reason string) {
	m.add("hpatch_router_rejections_total", 1, labelPair{"reason", reason})
}
func (m *metrics) Replay(outcome string) {
	m.add("hpatch_router_replay_total", 1, labelPair{"outcome", outcome})
}
func (m *metrics) RestoredScripts(n int) {
	m.add("hpatch_router_restored_scripts_total", uint64(n))
}
func (m *metrics) Committed(n int) {
	m.add("hpatch_router_committed_changes_total", uint64(n))
}
func (m *metrics) fault(kind string) { m.add("hpatch_router_faults_total", 1, labelPair{"kind", kind}) }
func (m *metrics) routerError(code string) {
	m.add("hpatch_router_errors_total", 1, labelPair{"code", code})
}

func (m *metrics) ShellCall(kind, interpreter string, warnings int) {
	interp := m.interpreterLabel(interpreter)
	m.add("hpatch_router_shell_calls_total", 1, labelPair{"kind", kind}, labelPair{"interpreter", interp})
	if warnings > 0 {
		m.add("hpatch_router_warnings_total", uint64(warnings))
	}
}

// interpreterName is the basename of an interpreter, restricted to a safe
// alphabet and 32 bytes: what /metrics and, without bodies, the observers
// show of a shebang.
func interpreterName(s string) string {
	s = path.Base(s)
	if s == "." || s == "/" {
		s = ""
	}
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-', r == '+':
			return r
		}
		return -1
	}, s)
	if len(s) > 32 {
		s = s[:32]
	}
	return s
}

// interpreterLabel is interpreterName ("none" when empty), with the number
// of distinct values capped.
func (m *metrics) interpreterLabel(s string) string {
	s = interpreterName(s)
	if s == "" {
		s = "none"
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.interpreters[s] {
		if len(m.interpreters) >= maxInterpreterLabels {
			return "other"
		}
		m.interpreters[s] = true
	}
	return s
}

// upstreamLatency observes the time until the upstream response headers.
func (m *metrics) upstreamLatency(d time.Duration) {
	sec := d.Seconds()
	m.mu.Lock()
	i := sort.SearchFloat64s(m.buckets, sec)
	m.counts[i]++
	m.sum += sec
	m.total++
	m.mu.Unlock()
}

// write renders every metric in the Prometheus text format.
func (m *metrics) write(w io.Writer) {
	type counter struct {
		key    counterKey
		labels string
		value  uint64
	}
	m.mu.Lock()
	counters := make([]counter, 0, len(m.counters))
	for k, v := range m.counters {
		counters = append(counters, counter{key: k, value: v})
	}
	counts := append([]uint64(nil), m.counts...)
	sum, total := m.sum, m.total
	m.mu.Unlock()

	for i := range counters {
		counters[i].labels = counters[i].key.labelText()
	}

	sort.Slice(counters, func(i, j int) bool {
		if counters[i].key.name != counters[j].key.name {
			return counters[i].key.name < counters[j].key.name
		}
		return counters[i].labels < counters[j].labels
	})
	for _, d := range counterDefs() {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s counter\n", d.name, d.help, d.name)
		seen := false
		for _, c := range counters {
			if c.key.name != d.name {
				continue
			}
			seen = true
			if c.labels == "" {
				fmt.Fprintf(w, "%s %d\n", d.name, c.value)
			} else {
				fmt.Fprintf(w, "%s{%s} %d\n", d.name, c.labels, c.value)
			}
		}
		if !seen && !d.labelled {
			fmt.Fprintf(w, "%s 0\n", d.name)
		}
	}
	for _, g := range m.gauges {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s gauge\n%s %d\n", g.name, g.help, g.name, g.name, g.value())
	}
	const h = "hpatch_router_upstream_latency_seconds"
	fmt.Fprintf(w, "# HELP %s Time until the upstream response headers arrived.\n# TYPE %s histogram\n", h, h)
	var cum uint64
	for i, b := range m.buckets {
		cum += counts[i]
		fmt.Fprintf(w, "%s_bucket{le=%q} %d\n", h, formatFloat(b), cum)
	}
	cum += counts[len(counts)-1]
	fmt.Fprintf(w, "%s_bucket{le=\"+Inf\"} %d\n%s_sum %s\n%s_count %d\n", h, cum, h, formatFloat(sum), h, total)
}

func formatFloat(f float64) string {
	if math.IsInf(f, 1) {
		return "+Inf"
	}
	return fmt.Sprintf("%g", f)
}
