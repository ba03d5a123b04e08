//go:build linux

package worker

import (
	"slices"
	"testing"
)

func TestPythonLike(t *testing.T) {
	for sel, want := range map[string]bool{"python": true, "python3": true, "/usr/bin/python3.12": true, "python3.9": true,
		"pypy3": true, "pypy3.10": true, "python3.": false, "python3.x": false, "python2": false, "pythonw": false,
		"node": false, "ipython3": false, "/opt/python3/bin/ruby": false} {
		if got := pythonLike(sel); got != want {
			t.Errorf("%q: got %v", sel, got)
		}
	}
}

// Options that change how Python finds or reads the program keep the plain
// /dev/fd/3 invocation; every other option goes before the loader's -c.
func TestInterpreterArgs(t *testing.T) {
	loader := func(mid ...string) []string {
		return append(append([]string{"python3"}, mid...), "-c", pythonLoader)
	}
	plain := func(mid ...string) []string { return append(append([]string{"python3"}, mid...), BodyPath) }
	cases := []struct {
		middle, want []string
	}{
		{nil, loader()},
		{[]string{"-u"}, loader("-u")},
		{[]string{"-uB", "-W", "ignore", "-Xdev", "-X", "utf8", "-Wdefault"}, loader("-uB", "-W", "ignore", "-Xdev", "-X", "utf8", "-Wdefault")},
		{[]string{"-W", "x", "-I"}, loader("-W", "x", "-I")},
		{[]string{"--check-hash-based-pycs", "never"}, loader("--check-hash-based-pycs", "never")},
		{[]string{"-x"}, plain("-x")},
		{[]string{"-ux"}, plain("-ux")},
		{[]string{"-m", "mod"}, plain("-m", "mod")},
		{[]string{"-c", "1"}, plain("-c", "1")},
		{[]string{"-"}, plain("-")},
		{[]string{"--"}, plain("--")},
		{[]string{"arg"}, plain("arg")},
		{[]string{"-W"}, plain("-W")},
		{[]string{"--check-hash-based-pycs"}, plain("--check-hash-based-pycs")},
	}
	for _, c := range cases {
		if got := interpreterArgs("python3", c.middle); !slices.Equal(got, c.want) {
			t.Errorf("%q: got %q", c.middle, got)
		}
	}
	if got := interpreterArgs("node", []string{"--no-warnings"}); !slices.Equal(got, []string{"node", "--no-warnings", "--preserve-symlinks-main", BodyPath}) {
		t.Errorf("node: %q", got)
	}
	if got := interpreterArgs("ruby", nil); !slices.Equal(got, []string{"ruby", BodyPath}) {
		t.Errorf("ruby: %q", got)
	}
}
