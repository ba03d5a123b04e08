package router

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"hpatch-router/ident"
	"hpatch-router/retain"
	"hpatch-router/rows"

	"hpatch-router/router/history"
	"hpatch-router/router/request"
	"hpatch-router/router/response"
)

// The property of DESIGN §8 "The model's history is the truth": whatever
// happens between the calls (outputs, aborts, cut streams, calls sent
// again with the same call_id, restarts with and without shutdown,
// compaction), a rerun runs the version of its script the model was told
// of, or is refused with one line; never another version. The test plays
// random conversations through the router (the real retain store, fake
// translation) against a model of what the model was told: the retained
// bodies and every edit whose report said it applied, of the calls the
// conversation shows as run (or earlier in the same response), in order.

// historyThread is the thread the property test plays.
const historyThread = "thread-history"

// told is the model of what the model was told of the scripts.
type told struct {
	version map[string][]string // script id → its rows; nil when no version was told
	known   map[string]bool     // the id has a version (false: unknown: an edit was told on a base the history does not give)
	counted map[string]bool     // calls applied
}

// apply folds one call that ran (or is earlier in the same response) into
// m, as its carrier told it.
func (m *told) apply(c playedCall) {
	if m.counted[c.id] {
		return // a call sent again counts once
	}
	m.counted[c.id] = true
	switch c.kind {
	case "retain":
		m.version[c.id], m.known[c.id] = c.rows, true
	case "rerun": // a rerun retains the body it ran
		if c.retained {
			m.version[c.id], m.known[c.id] = c.rows, true
		}
	case "edit":
		if !c.applied {
			return
		}
		rs, ok := m.version[c.target]
		next := append(append([]string(nil), rs...), c.line)
		row := rows.Row{Num: len(next), Text: []byte(c.line)}
		if !ok || !m.known[c.target] || !strings.Contains(c.report, row.Cite()+" "+c.line) {
			m.version[c.target], m.known[c.target] = nil, false
			return
		}
		m.version[c.target] = next
	}
}

// playedCall is one call the upstream sent and what its carrier said.
type playedCall struct {
	kind           string // retain, edit, rerun
	id, target     string
	input, line    string
	rows           []string
	carrier        string
	report         string
	applied        bool // an edit's carrier printed a report, not "hpatch: …"
	retained       bool // a retention's or rerun's carrier said retained
	output         string
	inHistory, ran bool
}

// historyPlayer drives the router through one conversation.
type historyPlayer struct {
	t                   testing.TB
	rng                 *rand.Rand
	root, state         string
	rt                  *Router
	store               *retain.Store
	history             []string     // the input items Codex would send
	calls               []playedCall // every call in history order, as the model saw them
	ids                 []string     // script ids ever retained or tried
	sent                map[string]bool
	events              []string // what happened, for a failure's message
	next                int
	reruns, checked     int
	refusedWhileKnown   int
	compacted, restarts int
}

func newHistoryPlayer(t testing.TB, seed uint64) *historyPlayer {
	p := &historyPlayer{t: t, rng: rand.New(rand.NewPCG(seed, 33)), root: t.TempDir(), state: t.TempDir(), sent: map[string]bool{}}
	p.start()
	return p
}

// start opens a store and a router on the player's runtime root and state
// directory, with the thread directory the worker would prepare.
func (p *historyPlayer) start() {
	dir := filepath.Join(p.root, ident.ThreadDirName(historyThread))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		p.t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	if os.Getenv("DBG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	store, err := retain.NewStore(p.root, retain.Logger(log))
	if err != nil {
		p.t.Fatal(err)
	}
	p.store = store
	u := newTestRouter(p.t, WithScripts(store), StateDir(p.state), Logger(log))
	p.rt = u
}

// restart ends the router: a graceful stop removes the scripts and the
// thread directory; a kill leaves them and loses what was staged.
func (p *historyPlayer) restart(graceful bool) {
	p.restarts++
	p.events = append(p.events, fmt.Sprintf("restart graceful=%v", graceful))
	if os.Getenv("DBG") != "" {
		b, _ := os.ReadFile(filepath.Join(p.state, historyThread+".replay.jsonl"))
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, `"commit"`) {
				p.events = append(p.events, "journal: "+l)
			}
		}
	}
	p.rt.Close()
	if graceful {
		p.store.Close()
		os.RemoveAll(filepath.Join(p.root, ident.ThreadDirName(historyThread)))
	}
	p.start()
}

// request sends the history as a request's input: what serveResponses
// does before the upstream is asked.
func (p *historyPlayer) request() {
	body := `{"input":[` + strings.Join(p.history, ",") + `]}`
	req, err := request.Parse([]byte(body))
	if err != nil {
		p.t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := p.rt.history.Apply(ctx, history.Turn{Thread: historyThread, Req: req}); err != nil {
		p.t.Fatalf("restore: %v", err)
	}
}

// newCalls makes one to three calls for a response.
func (p *historyPlayer) newCalls() []playedCall {
	var out []playedCall
	for range 1 + p.rng.IntN(3) {
		p.next++
		id := fmt.Sprintf("call_%d", p.next)
		var target string
		if len(p.ids) > 0 {
			target = p.ids[p.rng.IntN(len(p.ids))]
		}
		switch r := p.rng.IntN(10); {
		case r < 3 || target == "":
			body := []string{"#!python3", fmt.Sprintf("print(%d)", p.next)}
			out = append(out, playedCall{kind: "retain", id: id, rows: body, input: strings.Join(body, "\n") + "\n"})
			p.ids = append(p.ids, id)
		case r < 7:
			line := fmt.Sprintf("print('edit %d')", p.next)
			input := "in @shell/" + target + "\nadd EOF " + jstr(line) + "\n"
			if r == 6 {
				input = "in @shell/" + target + "\ntype 1:0000 \"stale\"\n" // refused: the hash names no row
			}
			out = append(out, playedCall{kind: "edit", id: id, target: target, line: line, input: input})
		default:
			out = append(out, playedCall{kind: "rerun", id: id, target: target, input: "#!script=@shell/" + target})
			p.ids = append(p.ids, id)
		}
	}
	return out
}

// respond streams calls as one response and records what each carrier
// said; the model's told state (m, a copy) sees every call before the
// next one, as staged versions are seen in one response.
func (p *historyPlayer) respond(calls []playedCall, m *told) {
	s := &stream{}
	s.created()
	for i, c := range calls {
		name := "shell"
		if c.kind == "edit" {
			name = "hpatch"
		}
		s.call("ctc_"+c.id+fmt.Sprint(i), c.id, name, "functions", c.input, 1)
	}
	s.completed()
	out := rewriteStream(p.t, p.rt, historyThread, request.Info{Owned: true, Namespace: "functions"}, s.String())
	for i := range calls {
		c := &calls[i]
		c.carrier = carrierInput(p.t, out, c.id)
		c.retained = strings.HasSuffix(c.carrier, "|true|@shell/"+c.id+")")
		p.events = append(p.events, fmt.Sprintf("sent %s %s %s: %.90q", c.kind, c.id, c.target, c.carrier))
		if c.kind == "edit" {
			c.report, c.applied = response.PrintedText(c.carrier)
			c.applied = c.applied && strings.HasPrefix(c.report, "@shell/")
		}
		if c.kind == "rerun" && c.retained {
			c.rows = strings.Split(strings.TrimSuffix(rerunBody(*c), "\n"), "\n")
		}
		if c.kind == "rerun" && !p.sent[c.id] {
			// A call sent again gets its first carrier, checked when it
			// was first sent (DESIGN §8: sending a call is idempotent).
			p.checkRerun(*c, m)
		}
		p.sent[c.id] = true
		m.apply(*c)
	}
}

// checkRerun: the rerun ran the version the model was told of, or was
// refused.
func (p *historyPlayer) checkRerun(c playedCall, m *told) {
	p.reruns++
	if strings.HasPrefix(c.carrier, "rejected(") {
		if m.known[c.target] {
			p.refusedWhileKnown++
		}
		return
	}
	if !strings.HasPrefix(c.carrier, "carrier(rerun|") {
		p.t.Fatalf("rerun %s: carrier %q", c.id, c.carrier)
	}
	ran := rerunBody(c)
	p.checked++
	want := strings.Join(m.version[c.target], "\n") + "\n"
	if !m.known[c.target] || ran != want {
		p.t.Fatalf("rerun %s of @shell/%s ran\n%q\nbut the model was told (known %v)\n%q\nevents:\n%s", c.id, c.target, ran, m.known[c.target], want, strings.Join(p.events, "\n"))
	}
}

// rerunBody is the script a rerun's carrier runs (fakeTranslator's
// carrier holds it).
func rerunBody(c playedCall) string {
	ran := strings.TrimPrefix(c.carrier, "carrier(rerun|")
	return ran[:strings.LastIndex(ran, "|"+fmt.Sprint(c.retained)+"|")]
}

// toldNow is what the history Codex holds (and the journal behind it)
// told the model, before the next response.
func (p *historyPlayer) toldNow() *told {
	m := &told{version: map[string][]string{}, known: map[string]bool{}, counted: map[string]bool{}}
	for _, c := range p.calls {
		if c.ran {
			m.apply(c)
		}
	}
	return m
}

// play runs n responses with random fates.
func (p *historyPlayer) play(n int) {
	var resend []playedCall
	for range n {
		p.request()
		calls := resend
		resend = nil
		if calls == nil || p.rng.IntN(2) == 0 {
			// New calls, after the ones sent again if any: they see what
			// the calls sent again staged.
			calls = append(calls[:len(calls):len(calls)], p.newCalls()...)
		}
		m := p.toldNow()
		p.respond(calls, m)
		switch fate := p.rng.IntN(10); {
		case fate < 1: // the stream was cut: the next request lacks the calls
			p.events = append(p.events, "cut")
			resend = p.maybe(calls, 2)
		case fate < 2: // Codex aborted them
			p.record(calls, func(int) bool { return false })
			resend = p.maybe(calls, 2)
		case fate < 3: // the upstream replays the response after it ran
			p.record(calls, func(int) bool { return true })
			resend = calls
		default: // they ran; a few outputs are aborted
			p.record(calls, func(int) bool { return p.rng.IntN(6) != 0 })
		}
		switch p.rng.IntN(12) {
		case 0:
			p.restart(true)
		case 1:
			p.restart(false)
		case 2:
			// Compaction: Codex sends the whole history to be compacted,
			// then continues without it; the journal keeps what is gone.
			p.request()
			p.history, p.compacted = nil, p.compacted+1
			p.events = append(p.events, "compaction")
		}
	}
}

// maybe returns calls one time in n.
func (p *historyPlayer) maybe(calls []playedCall, n int) []playedCall {
	if p.rng.IntN(n) == 0 {
		return calls
	}
	return nil
}

// record appends calls and their outputs to the history, each run when
// ran says so, aborted otherwise.
func (p *historyPlayer) record(calls []playedCall, ran func(int) bool) {
	for i, c := range calls {
		c.inHistory, c.ran = true, ran(i)
		c.output = "aborted"
		if c.ran {
			c.output = "Script completed"
		}
		p.history = append(p.history, echoOf("ctc_"+c.id, c.id, "functions", c.carrier),
			`{"type":"custom_tool_call_output","call_id":`+jstr(c.id)+`,"output":`+jstr(c.output)+`}`)
		p.calls = append(p.calls, c)
		p.events = append(p.events, fmt.Sprintf("output %s %s", c.id, c.output))
	}
}

// TestHistoryProperty plays seeded random conversations: no rerun runs a
// version the model was not told of, and while the conversation still
// shows every change, none is refused.
func TestHistoryProperty(t *testing.T) {
	seeds, steps := 16, 40
	if testing.Short() {
		seeds = 4
	}
	if n, err := strconv.Atoi(os.Getenv("HPATCH_HISTORY_SEEDS")); err == nil && n > 0 {
		seeds = n // a longer search than CI's
	}
	var reruns, checked, refused int
	for seed := range seeds {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			p := newHistoryPlayer(t, uint64(seed))
			p.play(steps)
			reruns, checked, refused = reruns+p.reruns, checked+p.checked, refused+p.refusedWhileKnown
		})
	}
	t.Logf("%d reruns, %d ran a version checked against the model, %d refused although a version was told", reruns, checked, refused)
	if checked == 0 {
		t.Fatal("no rerun ran a script: the property was never checked")
	}
}

// A cut stream (issue 33, case 2): the next request lacks its calls, so
// what they staged is discarded; the upstream sends the same calls again
// (same call_id). They get the carriers sent before and stage again, so a
// rerun later in that response, and one after their outputs, run the
// edited script. The router used to stage nothing: the rerun found no
// script although the model was told it was retained.
func TestCallSentAgainAfterACutStreamStagesAgain(t *testing.T) {
	p := newHistoryPlayer(t, 1)
	body := []string{"#!python3", "print('kept')"}
	line := "print('edited')"
	calls := []playedCall{
		{kind: "retain", id: "call_keep", rows: body, input: strings.Join(body, "\n") + "\n"},
		{kind: "edit", id: "call_edit", target: "call_keep", line: line, input: "in @shell/call_keep\nadd EOF " + jstr(line) + "\n"},
	}
	p.request()
	p.respond(calls, p.toldNow())
	first := []string{calls[0].carrier, calls[1].carrier}
	p.request() // the stream was cut: the request lacks the calls
	again := append(calls[:2:2], playedCall{kind: "rerun", id: "call_rerun_1", target: "call_keep", input: "#!script=@shell/call_keep"})
	p.respond(again, p.toldNow())
	if again[0].carrier != first[0] || again[1].carrier != first[1] {
		t.Fatalf("the calls sent again got other carriers:\n%q\nwant\n%q", []string{again[0].carrier, again[1].carrier}, first)
	}
	want := "carrier(rerun|#!python3\nprint('kept')\nprint('edited')\n|"
	if !strings.HasPrefix(again[2].carrier, want) {
		t.Fatalf("the rerun after the calls sent again: %q, want it to run the edited script", again[2].carrier)
	}
	p.record(again, func(int) bool { return true })
	p.request()
	p.respond([]playedCall{{kind: "rerun", id: "call_rerun_2", target: "call_keep", input: "#!script=@shell/call_keep"}}, p.toldNow())
	if p.checked != 2 {
		t.Fatalf("%d reruns checked against the model, want 2", p.checked)
	}
}
