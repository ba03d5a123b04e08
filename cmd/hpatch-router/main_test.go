package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestSubcommandHelpAndBadFlags guards the shared flag handling: --help
// prints the usage once, to stdout, and exits 0 (pflag's Usage hook would
// print it a second time); a bad flag or a stray argument exits 2 with one
// stderr line naming the problem and the way to the help.
func TestSubcommandHelpAndBadFlags(t *testing.T) {
	for _, c := range subcommands() {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			s := stdio{strings.NewReader(""), &out, &errb}
			if code := dispatch(context.Background(), []string{c.name, "--help"}, s); code != 0 {
				t.Fatalf("--help exit %d, stderr %q", code, errb.String())
			}
			if n := strings.Count(out.String(), "Usage: hpatch-router "+c.name); n != 1 {
				t.Errorf("--help printed the usage %d times: %q", n, out.String())
			}
			if errb.Len() != 0 {
				t.Errorf("--help wrote to stderr: %q", errb.String())
			}
			checkFlagColumn(t, out.String())
			for _, args := range [][]string{{c.name, "--no-such-flag"}, {c.name, "stray"}} {
				out.Reset()
				errb.Reset()
				if code := dispatch(context.Background(), args, s); code != 2 {
					t.Errorf("%q exit %d, want 2", args, code)
				}
				msg := errb.String()
				if strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "hpatch-router "+c.name+": ") || !strings.Contains(msg, "--help") {
					t.Errorf("%q stderr = %q, want one line pointing to --help", args, msg)
				}
				if out.Len() != 0 {
					t.Errorf("%q wrote to stdout: %q", args, out.String())
				}
			}
		})
	}
}

// TestTopLevelVersionFlag: `hpatch-router --version` is what a newcomer
// types; it prints the version like the version subcommand instead of
// failing as an unknown flag of serve, a subcommand they never named.
func TestTopLevelVersionFlag(t *testing.T) {
	for _, arg := range []string{"--version", "version"} {
		var out, errb bytes.Buffer
		code := dispatch(context.Background(), []string{arg}, stdio{strings.NewReader(""), &out, &errb})
		if code != 0 || out.String() != "hpatch-router "+version+"\n" || errb.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", arg, code, out.String(), errb.String())
		}
	}
}

// checkFlagColumn fails when a flag line of a --help text names more than
// one value after the flag: pflag takes a `quoted` word of the usage as the
// value's name, so a back-quoted phrase turns into a garbled column such as
// "--listen hpatch-router serve --listen".
func checkFlagColumn(t *testing.T, help string) {
	t.Helper()
	for _, line := range strings.Split(help, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if !strings.HasPrefix(trimmed, "-") || len(trimmed) == len(line) {
			continue
		}
		column, _, _ := strings.Cut(trimmed, "   ")
		fields := strings.Fields(column)
		for i, f := range fields {
			if strings.HasPrefix(f, "--") && len(fields)-i > 2 {
				t.Errorf("flag line %q names more than one value", line)
			}
		}
	}
}
