package hgrep

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"hpatch-router/worker/privcmd"
)

func newEnv(dir string, out, errw io.Writer, environ []string) *privcmd.Env {
	return &privcmd.Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: errw, Dir: dir, Environ: environ,
		Limits: privcmd.Bounds("hgrep")}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		rg      []string
		ignored []string
		dflt    bool
		errSub  string
	}{
		{name: "pattern then default path .", args: []string{"foo"},
			rg: []string{"--", "foo", "."}, dflt: true},
		{name: "pattern and paths after --", args: []string{"-i", "foo", "a", "b"},
			rg: []string{"--ignore-case", "--", "foo", "a", "b"}},
		{name: "pattern that looks like an option after --", args: []string{"--", "-x", "p"},
			rg: []string{"--", "-x", "p"}},
		{name: "-e makes every positional a path", args: []string{"-e", "foo", "-e", "-bar", "src"},
			rg: []string{"--regexp=foo", "--regexp=-bar", "--", "src"}},
		{name: "short cluster with attached value", args: []string{"-iwA3", "x"},
			rg: []string{"--ignore-case", "--word-regexp", "--after-context=3", "--", "x", "."}, dflt: true},
		{name: "long option with = value", args: []string{"--glob=*.go", "x"},
			rg: []string{"--glob=*.go", "--", "x", "."}, dflt: true},
		{name: "-R accepted as a no-op", args: []string{"-R", "x"}, rg: []string{"--", "x", "."}, dflt: true},
		{name: "presentation options ignored, value consumed", args: []string{"-r", "y", "--count", "-l", "x"},
			rg: []string{"--", "x", "."}, ignored: []string{"-r", "--count", "-l"}, dflt: true},
		{name: "ignored option reported once", args: []string{"-n", "-n", "x"},
			rg: []string{"--", "x", "."}, ignored: []string{"-n"}, dflt: true},
		{name: "--json ignored: hgrep already uses it", args: []string{"--json", "x"},
			rg: []string{"--", "x", "."}, ignored: []string{"--json"}, dflt: true},
		{name: "-U rejected", args: []string{"-U", "x"}, errSub: "-U changes what a line is"},
		{name: "--pre rejected", args: []string{"--pre", "cat", "x"}, errSub: "--pre searches a preprocessor"},
		{name: "-z rejected inside a cluster", args: []string{"-iz", "x"}, errSub: "-z searches decompressed"},
		{name: "--text rejected", args: []string{"--text", "x"}, errSub: "--text changes what a line is"},
		{name: "--null-data rejected", args: []string{"--null-data", "x"}, errSub: "changes what a line is"},
		{name: "--files rejected", args: []string{"--files"}, errSub: "prints no lines"},
		{name: "unknown long option rejected", args: []string{"--frobnicate", "x"}, errSub: "unknown option --frobnicate"},
		{name: "unknown short option rejected", args: []string{"-Y", "x"}, errSub: "unknown option -Y"},
		{name: "missing value rejected", args: []string{"x", "-A"}, errSub: "-A needs a value"},
		{name: "value on a flag rejected", args: []string{"--hidden=yes", "x"}, errSub: "takes no value"},
		{name: "no pattern rejected", args: nil, errSub: "no pattern"},
		{name: "-f - rejected", args: []string{"-f", "-"}, errSub: "standard input"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := classify(tc.args)
			if tc.errSub != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errSub) {
					t.Fatalf("err %v, want %q", err, tc.errSub)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error is not one line: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.rgArgs, tc.rg) || !reflect.DeepEqual(p.ignored, tc.ignored) || p.defaultPath != tc.dflt {
				t.Fatalf("got %q ignored %q default %v", p.rgArgs, p.ignored, p.defaultPath)
			}
		})
	}
}

func TestOptionTableHasNoDuplicates(t *testing.T) {
	long, short := map[string]bool{}, map[byte]bool{}
	for _, o := range options() {
		if o.long != "" && long[o.long] || o.short != 0 && short[o.short] {
			t.Fatalf("duplicate option %+v", o)
		}
		long[o.long], short[o.short] = true, true
		if o.act == reject && o.reason == "" {
			t.Fatalf("rejected option %+v has no reason", o)
		}
	}
}

func FuzzClassify(f *testing.F) {
	f.Add("-iwA3\x00x\x00src")
	f.Add("--glob=*.go\x00-e\x00a\x00--\x00-b")
	f.Add("-U\x00x")
	f.Add("-r\x00")
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\x00")
		p, err := classify(args)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		// rg's arguments always end with "--" then at least one path, and
		// never carry an option hgrep rejects or ignores.
		sep := -1
		for i, a := range p.rgArgs {
			if a == "--" {
				sep = i
				break
			}
		}
		if sep < 0 || sep == len(p.rgArgs)-1 {
			t.Fatalf("rg args %q lack -- and a path", p.rgArgs)
		}
		tbl := newOptionTable()
		for _, a := range p.rgArgs[:sep] {
			name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
			o, ok := tbl.long[name]
			if !ok && !strings.HasPrefix(a, "-") {
				t.Fatalf("stray rg arg %q", a)
			}
			if ok && o.act != pass {
				t.Fatalf("rg got %q", a)
			}
		}
	})
}
