package shebang

import (
	"strings"
	"testing"
)

func benchPython50() string {
	var b strings.Builder
	b.WriteString("#!/usr/bin/env python3\n")
	for i := 0; i < 50; i++ {
		b.WriteString("    value = compute('it''s', \"x\\n\", index) + 1  # line\n")
	}
	return b.String()
}

func benchTranslate(b *testing.B, in string) {
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		p, err := Translate(in, Options{})
		if err != nil {
			b.Fatal(err)
		}
		_ = p.Carrier(Retention{Retained: true, ScriptRef: "@shell/call_1"})
	}
}

// BenchmarkTranslatePython50 is the common case: a 50-line Python script.
func BenchmarkTranslatePython50(b *testing.B) { benchTranslate(b, benchPython50()) }

// BenchmarkTranslate64KB is a 64 KB bash body, which is also parsed for
// warnings and direct eligibility.
func BenchmarkTranslate64KB(b *testing.B) {
	line := "printf '%s\\n' \"$HOME\" | grep -v x > /dev/null\n"
	benchTranslate(b, strings.Repeat(line, 64*1024/len(line)))
}

// BenchmarkTranslate64KBPython is a 64 KB body that is not shell, so only
// the header, quoting and limits are paid for.
func BenchmarkTranslate64KBPython(b *testing.B) {
	line := "print('x' * 10, \"y\")\n"
	benchTranslate(b, "#!python3\n"+strings.Repeat(line, 64*1024/len(line)))
}
