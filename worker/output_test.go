//go:build linux

package worker

import "testing"

func TestCompleteUTF8(t *testing.T) {
	cases := map[string]string{
		"abc":           "abc",
		"ab\xc3":        "ab",
		"ab\xc3\xa9":    "ab\xc3\xa9",
		"a\xe2\x82":     "a",
		"a\xe2\x82\xac": "a\xe2\x82\xac",
		"a\xf0\x9f\x98": "a",
		"":              "",
	}
	for in, want := range cases {
		if got := string(completeUTF8([]byte(in))); got != want {
			t.Errorf("%q: got %q want %q", in, got, want)
		}
	}
}

func TestShellLang(t *testing.T) {
	for sel, want := range map[string]string{"bash": "bash", "/usr/bin/bash": "bash", "BASH.EXE": "bash", "sh": "sh", "/bin/sh": "sh",
		`C:\bin\sh.exe`: "sh", "python3": "", "zsh": "", "bashx": ""} {
		_, name, ok := shellLang(sel)
		if name != want || ok != (want != "") {
			t.Errorf("%q: got %q %v", sel, name, ok)
		}
	}
}
