package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"hpatch-router/internal/testenv"
	"hpatch-router/router/routertest"
)

// codexCallCase is one command the benchmark has Codex run, and the
// baseline it is compared with.
type codexCallCase struct {
	name, cmd, baseline string
}

// codexCallCases are the worker-path commands of scripts/bench-worker.sh,
// each beside the command a user would run without the router, as Codex
// runs them both: `bash -c CMD` in its sandbox.
var codexCallCases = []codexCallCase{
	{"echo", "echo hi", ""},
	{"shell echo", "shell bash 'echo hi'", "echo"},
	{"cat -n 10k", "cat -n 10k.txt", ""},
	{"shell hread 10k", "shell bash 'hread 10k.txt'", "cat -n 10k"},
}

// BenchmarkCodexCallWall measures what the worker path costs a user inside
// a real Codex session, where every command already pays for Codex's
// sandbox and its `bash -c`: one model exec call whose JavaScript runs each
// case of codexCallCases in turn, HPATCH_BENCH_ROUNDS times (default 30),
// through tools.exec_command in Codex's default read-only sandbox, and
// returns the wall time of each call, taken in the JavaScript around the
// await (Codex's own wall_time_seconds counts only the wait for output,
// a few µs). The router, the helper and the worker are the ones this tree
// builds; the first model call (a shell call) prepares the thread's
// runtime the way a real session's first call does. Interleaving puts a changing machine
// load on every case alike; the paired ratio divides the two commands of
// one round. scripts/bench-worker.sh measures the same commands outside
// Codex, against a bare `bash -c`.
//
//	go test ./cmd/hpatch-router -run '^$' -bench BenchmarkCodexCallWall -benchtime 1x
func BenchmarkCodexCallWall(b *testing.B) {
	codex := codexBin(b)
	rounds := 30
	if s := os.Getenv("HPATCH_BENCH_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("HPATCH_BENCH_ROUNDS=%q: want a positive number of rounds", s)
		}
		rounds = n
	}
	binDir := e2eBins.binDir(b)
	var lines strings.Builder
	for i := 1; i <= 10000; i++ {
		fmt.Fprintf(&lines, "line %d\n", i)
	}
	ws := workspace(b, map[string]string{"10k.txt": lines.String()})
	wall := map[string][]float64{}
	var clock string
	for range b.N {
		ms, c := runCodexCalls(b, codex, binDir, ws, rounds)
		for name, v := range ms {
			wall[name] = append(wall[name], v...)
		}
		clock = c
	}
	b.StopTimer()
	fmt.Printf("\n%d interleaved rounds inside Codex (read-only sandbox), ms around each tools.exec_command (%s): median [p25 p75] mean\n", len(wall["echo"]), clock)
	for _, c := range codexCallCases {
		v := wall[c.name]
		fmt.Printf("  %-18s %-28s %7.1f [%6.1f %6.1f] %7.2f\n", c.name, c.cmd, testenv.Quantile(v, 0.5), testenv.Quantile(v, 0.25), testenv.Quantile(v, 0.75), mean(v))
	}
	fmt.Printf("\nratios: mean/mean (paired per-round ratio: median [p25 p75]), mean difference\n")
	for _, c := range codexCallCases {
		if c.baseline == "" {
			continue
		}
		num, den := wall[c.name], wall[c.baseline]
		paired := testenv.Paired(num, den)
		ratio := mean(num) / mean(den)
		fmt.Printf("  %-18s / %-12s %5.2fx  (%5.2fx [%5.2f %5.2f])  %+.2f ms\n", c.name, c.baseline, ratio,
			testenv.Quantile(paired, 0.5), testenv.Quantile(paired, 0.25), testenv.Quantile(paired, 0.75),
			mean(num)-mean(den))
		b.ReportMetric(ratio, "x-"+strings.ReplaceAll(c.name, " ", "-"))
	}
}

// mean is the arithmetic mean of v. The JavaScript clock may count whole
// milliseconds (Date.now), so the mean over many rounds says more than a
// median of integers.
func mean(v []float64) float64 {
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	return sum / float64(max(len(v), 1))
}

// codexCallsJS is the model's exec call: it runs every case once per
// round and prints each call's wall time in ms, and the clock that took
// it, as one "BENCH {…}" line; a command that fails is named in "failed".
func codexCallsJS(rounds int) string {
	cases, _ := json.Marshal(codexCallCases)
	var js strings.Builder
	fmt.Fprintf(&js, "const cases = %s;\n", cases)
	fmt.Fprintf(&js, `const now = typeof performance !== "undefined" ? () => performance.now() : () => Date.now();
const clock = typeof performance !== "undefined" ? "performance.now" : "Date.now";
const wall = {};
let failed = "";
for (const c of cases) wall[c.name] = [];
for (let i = 0; i < %d; i++) {
  for (const c of cases) {
    const t0 = now();
    const r = await tools.exec_command({cmd: c.cmd, login: false});
    wall[c.name].push(now() - t0);
    if (r.exit_code !== 0) failed = c.name + ": exit " + r.exit_code + ": " + String(r.output).slice(0, 300);
  }
}
text("BENCH " + JSON.stringify({clock, wall, failed}));
`, rounds)
	return js.String()
}

// MarshalJSON gives the JavaScript side a case's name and command.
func (c codexCallCase) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"name": c.name, "cmd": c.cmd})
}

// runCodexCalls runs one Codex session against a fresh router: a shell
// call that prepares the thread, then the measuring exec call. It returns
// the wall times in milliseconds by case name, and the JavaScript clock.
func runCodexCalls(b *testing.B, codex, binDir, ws string, rounds int) (ms map[string][]float64, clock string) {
	b.Helper()
	up := routertest.NewUpstream(b, routertest.Scenario{Steps: []routertest.Step{
		shellStep("call_bench_warm", 1, "echo warm\n"),
		{CustomToolCall: &routertest.CustomToolCall{Name: "exec", Namespace: "functions",
			CallID: "call_bench_calls", ID: "ctc_bench_calls", Input: codexCallsJS(rounds)}},
		{Message: "measured"},
	}})
	runtimeDir := b.TempDir()
	r := startRouter(b, routerSpec{binDir: binDir, upstream: up.URL(), runtimeDir: runtimeDir})
	home := writeCodexHome(b, configCatalog, r.URL+"/v1")
	run := runCodex(b, codex, home, binDir, runtimeDir, ws, "measure the worker path")
	var text string
	for _, p := range up.Posts() {
		if outs := p.FindItems("custom_tool_call_output", "call_bench_calls"); len(outs) > 0 {
			text = routertest.OutputText(outs[0])
		}
	}
	_, result, ok := strings.Cut(text, "BENCH ")
	if !ok {
		b.Fatalf("the measuring exec call printed no BENCH line (did it yield? fewer HPATCH_BENCH_ROUNDS then); its output:\n%s\ncodex output:\n%s", text, run.Output)
	}
	var got struct {
		Clock  string               `json:"clock"`
		Wall   map[string][]float64 `json:"wall"`
		Failed string               `json:"failed"`
	}
	if err := json.NewDecoder(strings.NewReader(result)).Decode(&got); err != nil {
		b.Fatalf("BENCH line: %v: %s", err, result)
	}
	if got.Failed != "" {
		b.Fatalf("a measured command failed inside Codex: %s", got.Failed)
	}
	for _, c := range codexCallCases {
		if len(got.Wall[c.name]) != rounds {
			b.Fatalf("case %q: %d wall times, want %d: %s", c.name, len(got.Wall[c.name]), rounds, result)
		}
	}
	return got.Wall, got.Clock
}
