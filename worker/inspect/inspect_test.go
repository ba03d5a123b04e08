package inspect

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hpatch-router/rows"
	"hpatch-router/worker/inspect/jsonfile"
	"hpatch-router/worker/internal/workspacetest"
	"hpatch-router/worker/privcmd"
)

type gotEnvelope struct {
	OK   bool `json:"ok"`
	Data struct {
		Path          string  `json:"path"`
		Kind          string  `json:"kind"`
		Language      string  `json:"language"`
		SizeBytes     int     `json:"size_bytes"`
		LineCount     int     `json:"line_count"`
		ParseComplete bool    `json:"parse_complete"`
		Outline       []Entry `json:"outline"`
	} `json:"data"`
	Truncated  bool `json:"truncated"`
	Truncation *struct {
		LimitBytes   int `json:"limit_bytes"`
		EntriesShown int `json:"entries_shown"`
		EntriesTotal int `json:"entries_total"`
	} `json:"truncation"`
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// okStatus is the exit status an envelope that answered must come with:
// privcmd.ExitTruncated when the outline was cut, else 0.
func (e gotEnvelope) okStatus() int {
	if e.Truncated {
		return privcmd.ExitTruncated
	}
	return 0
}

// inspect runs inspect_file on path in dir and checks the envelope's shape:
// one JSON line, every citation a real row of the file.
func inspect(t *testing.T, dir, path string) (gotEnvelope, string, int) {
	t.Helper()
	return inspectWith(t, Run, dir, path)
}

// patientRun is Run with a one-minute time limit, for tests about what an
// outline holds rather than how fast it is made: under -race on a loaded
// 2-core machine the race-built outline child of a JSON file 200,000
// brackets deep once took longer than the real 5 s (exit 124, time_limit).
func patientRun(ctx context.Context, env *privcmd.Env, args []string) int {
	env.Limits.Time = time.Minute
	return Run(ctx, env, args)
}

// inspectWith is inspect with the command given.
func inspectWith(t *testing.T, command privcmd.Func, dir, path string) (gotEnvelope, string, int) {
	t.Helper()
	out, errOut, code := workspacetest.Run(t, command, dir, "inspect_file", path)
	if errOut != "" {
		t.Fatalf("stderr %q", errOut)
	}
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") || len(out) > privcmd.InspectOutput {
		t.Fatalf("not one bounded line: %d bytes", len(out))
	}
	var env gotEnvelope
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if env.OK {
		data, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil {
			t.Fatal(err)
		}
		rows := rows.Split(data)
		cites := map[string]bool{}
		for _, r := range rows {
			cites[r.Cite()] = true
		}
		for _, e := range env.Data.Outline {
			if !cites[e.Line] || !cites[e.LineEnd] {
				t.Fatalf("entry %+v cites a row the file does not have", e)
			}
		}
	}
	return env, out, code
}

// summary renders entries as "kind name@line-lineEnd" with extras.
func summary(entries []Entry) []string {
	var s []string
	for _, e := range entries {
		x := fmt.Sprintf("%s %s@%s-%s", e.Kind, e.Name, strings.Split(e.Line, ":")[0], strings.Split(e.LineEnd, ":")[0])
		if e.Receiver != "" {
			x += " recv=" + e.Receiver
		}
		if e.Level != 0 {
			x += fmt.Sprintf(" level=%d", e.Level)
		}
		if e.ValueType != "" {
			x += " type=" + e.ValueType
		}
		s = append(s, x)
	}
	return s
}

func TestInspect(t *testing.T) {
	dir := workspacetest.Copy(t)
	tests := []struct {
		name     string
		path     string
		lang     string
		complete bool
		want     []string // entries that must appear, in order
		absent   []string // substrings that must not appear in the output (bodies, values)
	}{
		{name: "Go: imports, constants, variables, functions", path: "main.go", lang: "go", complete: true,
			want: []string{"import fmt@5-5", "import example.com/workspace/util@8-8",
				"constant Version@12-12", "variable verbose@14-14", "function main@16-24"},
			absent: []string{`"1.0"`, "Println"}},
		{name: "Go: grouped constants, types, methods with receiver", path: "util/util.go", lang: "go", complete: true,
			want: []string{"constant Limit@8-8", "constant Initial@9-9", "type Counter@13-16", "type Shape@19-21",
				"function NewCounter@24-26", "method Add@29-34 recv=*Counter", "method Total@37-37 recv=*Counter"},
			absent: []string{"hello, ", "c.total"}},
		{name: "Go: CRLF file cites rows without CR", path: "util/crlf.go", lang: "go", complete: true,
			want: []string{"function Twice@5-7"}},
		{name: "Go: symlink to a file is followed", path: "_links/main.go", lang: "go", complete: true,
			want: []string{"function main@16-24"}},
		{name: "Markdown: front matter scalar keys, headings with levels and sections", path: "docs/guide.md",
			lang: "markdown", complete: true,
			want: []string{"front_matter title@2-2", "front_matter draft@3-3", "front_matter weight@4-4",
				"heading Guide@12-32 level=1", "heading Install@16-26 level=2", "heading Details@25-26 level=3",
				"heading Setext Heading@27-29 level=2", "heading Usage@30-32 level=2"},
			absent: []string{"Guide to the workspace", "nobody", "secret-value-list", "tags", "author", "not a heading"}},
		{name: "Markdown: CRLF", path: "docs/crlf.md", lang: "markdown", complete: true,
			want: []string{"heading CRLF notes@1-7 level=1", "heading Second@5-7 level=2"}},
		{name: "JSON: pointers with value types, RFC 6901 escapes", path: "data/config.json", lang: "json", complete: true,
			want: []string{" @1-12 type=object", "pointer /name@2-2 type=string", "pointer /version@3-3 type=number",
				"pointer /enabled@4-4 type=boolean", "pointer /owner@5-5 type=null", "pointer /servers@6-9 type=array",
				"pointer /servers/1/port@8-8 type=number", "pointer /a~1b~0c@11-11 type=string"},
			absent: []string{"a.example", "escaped pointer", "443"}},
		{name: "JSON: CRLF file cites rows without CR", path: "data/crlf.json", lang: "json", complete: true,
			want: []string{" @1-7 type=object", "pointer /a@2-5 type=array", "pointer /a/1@4-4 type=number",
				"pointer /b@6-6 type=object", "pointer /b/c@6-6 type=boolean"}},
		{name: "Python: imports, constants, classes with methods, functions", path: "py/app.py",
			lang: "python", complete: true,
			want: []string{"import os@2-2", "import typing@3-3", "constant LIMIT@5-5", "class Greeter@8-15",
				"method __init__@11-12 recv=Greeter", "method greet@14-15 recv=Greeter",
				"function helper@18-21", "function fetch@24-25"},
			absent: []string{"greets", "len(items)"}},
		{name: "TypeScript: interfaces and aliases as types, exported declarations", path: "ts/app.ts",
			lang: "typescript", complete: true,
			want: []string{"import fs@1-1", "constant LIMIT@3-3", "type Shape@5-7", "type Name@9-9",
				"class Circle@11-17", "method area@14-16 recv=Circle", "function total@19-21"},
			absent: []string{"Math.PI", "reduce"}},
		{name: "JavaScript: classes, functions, arrow functions", path: "js/app.js",
			lang: "javascript", complete: true,
			want: []string{"constant LIMIT@3-3", "class Store@5-13", "method add@10-12 recv=Store",
				"function makeStore@15-17", "function arrow@19-19"},
			absent: []string{"push"}},
		{name: "text file: no parser, empty outline", path: "text/noeol.txt", lang: "text"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, out, code := inspect(t, dir, tc.path)
			if code != 0 || !env.OK {
				t.Fatalf("exit %d: %s", code, out)
			}
			d := env.Data
			if d.Path != tc.path || d.Language != tc.lang || d.ParseComplete != tc.complete || env.Truncated || env.Truncation != nil {
				t.Fatalf("metadata: %s", out)
			}
			data, _ := os.ReadFile(filepath.Join(dir, tc.path))
			if d.SizeBytes != len(data) || d.LineCount != len(rows.Split(data)) {
				t.Fatalf("size %d lines %d", d.SizeBytes, d.LineCount)
			}
			got := summary(d.Outline)
			at := 0
			for _, w := range tc.want {
				found := false
				for ; at < len(got); at++ {
					if strings.HasSuffix(got[at], w) || got[at] == w {
						found = true
						at++
						break
					}
				}
				if !found {
					t.Fatalf("missing %q (in order) in %q", w, got)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(out, a) {
					t.Fatalf("output shows %q: %s", a, out)
				}
			}
		})
	}
}

func TestInspectErrors(t *testing.T) {
	dir := workspacetest.Copy(t)
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("bad.json", "{\"a\": [1, 2,")
	write("nopkg.go", "func main() {}\n")
	write("partial.go", "package p\n\nfunc A() {}\n\nfunc B( {\n")
	write("partial.json", "{\"a\": 1, \"b\": }")
	tests := []struct {
		name string
		args []string
		code string
	}{
		{name: "usage: no path", args: []string{"inspect_file"}, code: CodeUsage},
		{name: "usage: two paths", args: []string{"inspect_file", "a", "b"}, code: CodeUsage},
		{name: "not_found", args: []string{"inspect_file", "no/such.go"}, code: CodeNotFound},
		{name: "not_regular: directory", args: []string{"inspect_file", "util"}, code: CodeNotRegular},
		{name: "not_regular: symlink to a directory", args: []string{"inspect_file", "_linkdir"}, code: CodeNotRegular},
		{name: "not_utf8", args: []string{"inspect_file", "text/latin1.txt"}, code: CodeNotUTF8},
		{name: "parse: JSON cut before any value", args: []string{"inspect_file", "bad.json"}, code: ""},
		{name: "parse: Go without package clause", args: []string{"inspect_file", "nopkg.go"}, code: CodeParse},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := workspacetest.Run(t, Run, dir, tc.args...)
			var env gotEnvelope
			if err := json.Unmarshal([]byte(out), &env); err != nil || errOut != "" {
				t.Fatalf("out %q err %q", out, errOut)
			}
			if tc.code == "" { // partial outline, not an error
				if code != 0 || !env.OK || env.Data.ParseComplete {
					t.Fatalf("want a partial outline: %s", out)
				}
				return
			}
			if code != 1 || env.OK || env.Error.Code != tc.code || !strings.HasPrefix(env.Error.Message, "inspect_file: ") {
				t.Fatalf("exit %d: %s", code, out)
			}
		})
	}
	t.Run("parse_complete false: Go with a syntax error keeps what parsed", func(t *testing.T) {
		env, out, _ := inspect(t, dir, "partial.go")
		if !env.OK || env.Data.ParseComplete || len(env.Data.Outline) == 0 || env.Data.Outline[0].Name != "A" {
			t.Fatalf("%s", out)
		}
	})
	t.Run("parse_complete false: JSON error after entries", func(t *testing.T) {
		env, out, _ := inspect(t, dir, "partial.json")
		if !env.OK || env.Data.ParseComplete || len(env.Data.Outline) < 2 {
			t.Fatalf("%s", out)
		}
	})
}

func TestInspectHugeOutlineHitsBoundWithoutCuttingAnEntry(t *testing.T) {
	dir := workspacetest.Copy(t)
	var b strings.Builder
	b.WriteString("package huge\n\n")
	for i := range 5000 {
		fmt.Fprintf(&b, "func Function%05d() {}\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "huge.go"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	env, out, code := inspect(t, dir, "huge.go")
	if code != privcmd.ExitTruncated || !env.Truncated || env.Truncation == nil {
		t.Fatalf("exit %d, want %d and a truncated envelope: %.300s", code, privcmd.ExitTruncated, out)
	}
	tr := env.Truncation
	if tr.LimitBytes != privcmd.InspectOutput || tr.EntriesTotal != 5000 || tr.EntriesShown != len(env.Data.Outline) || tr.EntriesShown < 100 {
		t.Fatalf("truncation %+v, outline %d", *tr, len(env.Data.Outline))
	}
	if len(out) < privcmd.InspectOutput-200 {
		t.Fatalf("envelope %d bytes: the bound was not used", len(out))
	}
	last := env.Data.Outline[len(env.Data.Outline)-1]
	if last.Name != fmt.Sprintf("Function%05d", tr.EntriesShown-1) {
		t.Fatalf("last entry %+v", last)
	}
}

func TestBoundedOutputLimit(t *testing.T) {
	d := &data{Path: strings.Repeat("p", 200), Outline: []Entry{{Kind: KindFunction, Name: "f"}}}
	if _, _, ok := bounded(d, 0, 100); ok {
		t.Fatal("an envelope larger than the bound was accepted")
	}
	if out, truncated, ok := bounded(d, 0, 1000); !ok || truncated || len(out) > 1000 {
		t.Fatalf("ok %v truncated %v len %d", ok, truncated, len(out))
	}
	if _, truncated, ok := bounded(d, 1, 1000); !ok || !truncated {
		t.Fatalf("entries the parser dropped: ok %v truncated %v, want a truncated envelope", ok, truncated)
	}
}

func TestInspectJSONDeepAndWideStaysBounded(t *testing.T) {
	dir := workspacetest.Copy(t)
	deep := strings.Repeat("[", 200000) + strings.Repeat("]", 200000)
	wide := "[" + strings.Repeat("{\"k\": 1},\n", 20000) + "0]"
	for name, data := range map[string]string{"deep.json": deep, "wide.json": wide} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env, out, code := inspectWith(t, patientRun, dir, "deep.json")
	if code != 0 || !env.Data.ParseComplete || len(env.Data.Outline) != jsonfile.MaxPointerDepth+1 {
		t.Fatalf("deep: exit %d %.300s", code, out)
	}
	env, out, code = inspectWith(t, patientRun, dir, "wide.json")
	if code != privcmd.ExitTruncated || !env.Truncated || env.Truncation.EntriesTotal != 1+20001*2-1 {
		t.Fatalf("wide: exit %d truncation %+v %.200s", code, env.Truncation, out)
	}
}
