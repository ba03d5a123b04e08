package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

func main() {
	os.Exit(run(os.Stdin, os.Stdout))
}

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // build-output and build-fail events
}

// maxTestOutput bounds the output kept per test: a failed test prints
// its first bytes and says how much was dropped.
const maxTestOutput = 1 << 20

type testKey struct{ pkg, test string }

// summary is the state of one stream.
type summary struct {
	out      io.Writer
	pending  map[testKey]*strings.Builder // output of tests still running
	dropped  map[testKey]int
	skips    map[string][]testKey // reason → tests
	started  map[string]bool      // packages with a start event
	finished map[string]bool      // packages with a pass/fail/skip event
	failed   bool
}

func run(in io.Reader, out io.Writer) int {
	s := &summary{out: out, pending: map[testKey]*strings.Builder{}, dropped: map[testKey]int{},
		skips: map[string][]testKey{}, started: map[string]bool{}, finished: map[string]bool{}}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		s.line(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(out, "testsummary: reading go test -json: %v\n", err)
		s.failed = true
	}
	for pkg := range s.started {
		if !s.finished[pkg] {
			fmt.Fprintf(out, "FAIL\t%s: the test stream ended before the package did\n", pkg)
			s.failed = true
		}
	}
	s.printSkips()
	if s.failed {
		return 1
	}
	return 0
}

// line handles one line of the stream; a line that is not an event (go
// vet or a build error printed around it) is passed through.
func (s *summary) line(b []byte) {
	var e event
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &e) != nil {
		fmt.Fprintf(s.out, "%s\n", b)
		return
	}
	switch {
	case e.Action == "build-output":
		io.WriteString(s.out, e.Output)
	case e.Action == "build-fail":
		s.failed = true
	case e.Test == "":
		s.packageEvent(e)
	default:
		s.testEvent(e)
	}
}

func (s *summary) packageEvent(e event) {
	switch e.Action {
	case "start":
		s.started[e.Package] = true
	case "output":
		// Package-level lines are what plain go test prints: "ok …",
		// "FAIL …", "--- FAIL" summaries, panics outside a test.
		if o := e.Output; o != "PASS\n" && !strings.HasPrefix(o, "=== ") {
			io.WriteString(s.out, o)
		}
	case "fail":
		s.failed = true
		s.finished[e.Package] = true
	case "pass", "skip":
		s.finished[e.Package] = true
	}
}

func (s *summary) testEvent(e event) {
	k := testKey{e.Package, e.Test}
	switch e.Action {
	case "output":
		b := s.pending[k]
		if b == nil {
			b = &strings.Builder{}
			s.pending[k] = b
		}
		if b.Len()+len(e.Output) > maxTestOutput {
			s.dropped[k] += len(e.Output)
			return
		}
		b.WriteString(e.Output)
	case "fail":
		if b := s.pending[k]; b != nil {
			io.WriteString(s.out, b.String())
		}
		if n := s.dropped[k]; n > 0 {
			fmt.Fprintf(s.out, "    (testsummary: %d more bytes of %s's output dropped)\n", n, e.Test)
		}
		s.forget(k)
	case "skip":
		reason := skipReason(s.pending[k])
		s.skips[reason] = append(s.skips[reason], k)
		s.forget(k)
	case "pass":
		s.forget(k)
	}
}

func (s *summary) forget(k testKey) {
	delete(s.pending, k)
	delete(s.dropped, k)
}

// skipReason is the group a skipped test is listed under: "needs TOOL"
// for a testenv.Missing skip, else the test's own skip message.
func skipReason(b *strings.Builder) string {
	if b == nil {
		return "no message"
	}
	var msg []string
	for line := range strings.SplitSeq(b.String(), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "=== ") || strings.HasPrefix(line, "--- SKIP") {
			continue
		}
		if i := strings.Index(line, needsPrefix); i >= 0 {
			if j := strings.Index(line[i:], "):"); j > len(needsPrefix) {
				return "needs " + line[i+len(needsPrefix):i+j]
			}
		}
		// A skip message follows the file:line of the t.Skip call.
		if _, after, ok := strings.Cut(line, ".go:"); ok {
			if _, m, ok := strings.Cut(after, ": "); ok {
				line = m
			}
		}
		msg = append(msg, line)
	}
	if len(msg) == 0 {
		return "no message"
	}
	r := strings.Join(msg, " ")
	if len(r) > 120 {
		r = r[:120] + "…"
	}
	return r
}

// needsPrefix is testenv.SkipPrefix (kept apart: this command imports
// nothing of the tests' helpers).
const needsPrefix = "skipped (needs "

// printSkips writes the closing block: the tool groups first, sorted by
// name, then the other reasons.
func (s *summary) printSkips() {
	if len(s.skips) == 0 {
		fmt.Fprintln(s.out, "skipped: none")
		return
	}
	reasons := make([]string, 0, len(s.skips))
	total := 0
	for r, ks := range s.skips {
		reasons = append(reasons, r)
		total += len(ks)
	}
	sort.Slice(reasons, func(i, j int) bool {
		ni, nj := strings.HasPrefix(reasons[i], "needs "), strings.HasPrefix(reasons[j], "needs ")
		if ni != nj {
			return ni
		}
		return reasons[i] < reasons[j]
	})
	fmt.Fprintf(s.out, "\n%d skipped tests (install what each group needs to run them; under CI=true a missing tool fails):\n", total)
	for _, r := range reasons {
		ks := s.skips[r]
		label := r
		if strings.HasPrefix(r, "needs ") {
			label = "skipped (" + r + ")"
		} else {
			label = "skipped: " + r
		}
		fmt.Fprintf(s.out, "%s: %d\n", label, len(ks))
		byPkg := map[string][]string{}
		for _, k := range ks {
			byPkg[k.pkg] = append(byPkg[k.pkg], k.test)
		}
		pkgs := make([]string, 0, len(byPkg))
		for p := range byPkg {
			pkgs = append(pkgs, p)
		}
		sort.Strings(pkgs)
		for _, p := range pkgs {
			tests := byPkg[p]
			sort.Strings(tests)
			fmt.Fprintf(s.out, "  %s: %s\n", strings.TrimPrefix(p, "hpatch-router/"), strings.Join(tests, ", "))
		}
	}
}
