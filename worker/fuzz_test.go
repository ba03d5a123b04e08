//go:build linux

package worker

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

type nopFile struct{}

func (nopFile) Read([]byte) (int, error)    { return 0, io.EOF }
func (nopFile) Write(p []byte) (int, error) { return len(p), nil }
func (nopFile) Close() error                { return nil }

// FuzzShellDryRun: any Bash or sh input goes through the worker's parse
// and option handling and a dry run (no external command, no file opened,
// bounded time) without panicking; a rejected parse always yields one
// diagnostic line.
func FuzzShellDryRun(f *testing.F) {
	for _, s := range []string{"echo hi", "set -e; false", "a=(1 2); echo ${a[@]}", "f() { f; }; f", "for i in 1 2; do hread x; done",
		"echo $((1/0))", "read x; echo $x", "case $x in *) ;; esac", "echo 'unterminated", "[[ -n $x ]] && exit 3", "trap 'echo t' EXIT; exit 1"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		f.Fatal(err)
	}
	defer devnull.Close()
	f.Fuzz(func(t *testing.T, body string, posix bool) {
		lang, name := syntax.LangBash, "bash"
		if posix {
			lang, name = syntax.LangPOSIX, "sh"
		}
		file, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(body), name)
		if err != nil {
			if msg := syntaxError(name, err); strings.Contains(msg, "\n") && !strings.Contains(body, "\n") {
				t.Fatalf("multi-line diagnostic %q", msg)
			}
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		runner, err := interp.New(
			interp.StdIO(devnull, io.Discard, io.Discard),
			interp.Env(expand.ListEnviron("PATH=/nonexistent")),
			interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc {
				return func(context.Context, []string) error { return nil }
			}),
			interp.OpenHandler(func(context.Context, string, int, os.FileMode) (io.ReadWriteCloser, error) {
				return nopFile{}, nil
			}),
		)
		if err != nil {
			t.Fatal(err)
		}
		_ = runner.Run(ctx, file)
	})
}
