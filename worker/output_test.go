//go:build linux

package worker

import (
	"io"
	"os"
	"os/exec"
	"testing"
	"time"
)

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

// Guards the stream's two modes and their order: the shell's own writes
// reach the destination before Write returns while no child needs the
// stream (no pipe, no copy goroutine), a child's descriptor turns it into
// the pipe, and from then on the shell writes through the same pipe, so
// what came before, from the child and after stays in that order.
func TestStreamWritesDirectUntilAChildNeedsIt(t *testing.T) {
	dstR, dstW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer dstR.Close()
	o := &output{limit: DefaultOutputLimit}
	s := o.newStream(dstW)
	if _, err := s.Write([]byte("a")); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 1)
	if _, err := io.ReadFull(dstR, got); err != nil || string(got) != "a" {
		t.Fatalf("direct write: %q %v", got, err)
	}
	if s.w != nil || s.done != nil {
		t.Fatal("a pipe was made though no child needed one")
	}
	f, err := s.file()
	if err != nil || f == dstW {
		t.Fatalf("file() = %v, %v; want a pipe", f, err)
	}
	child := exec.Command("printf", "b")
	child.Stdout = f
	if err := child.Run(); err != nil {
		t.Fatal(err)
	}
	s.Write([]byte("c"))
	s.closeWriter()
	if !s.wait(time.Now().Add(10 * time.Second)) {
		t.Fatal("the drain did not end")
	}
	dstW.Close()
	rest, _ := io.ReadAll(dstR)
	if string(rest) != "bc" {
		t.Fatalf("after the pipe: %q, want \"bc\"", rest)
	}
}
