package response_test

import (
	"errors"
	"strings"
	"testing"

	"hpatch-router/router/response"
	"hpatch-router/scriptref"
	"hpatch-router/shebang"
)

// PrintCarrier is `text(<s as encoding/json writes it>);`: one line, and
// the HTML characters <, > and & as \u escapes. That is by design, not
// an accident to tidy up: the JavaScript string reads back as the same
// text, and the carrier's bytes are recorded in the thread state and
// compared when a call is sent again (restage compares PrintCarrier of
// the report with the carrier sent), so another spelling of the same text
// would make every earlier hpatch carrier look like another report.
func TestPrintCarrierExactBytes(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", `text("");`},
		{"hpatch: no", `text("hpatch: no");`},
		{"two\nlines\r\tand a tab", `text("two\nlines\r\tand a tab");`},
		{`a "quote" and a \ backslash`, `text("a \"quote\" and a \\ backslash");`},
		{"<script>&amp;</script>", `text("\u003cscript\u003e\u0026amp;\u003c/script\u003e");`},
		{"line\u2028para\u2029end", `text("line\u2028para\u2029end");`},
		{"bad \xff byte", `text("bad \ufffd byte");`},
		{"\x00\x1f", `text("\u0000\u001f");`},
		{"é ✓ 𝄞", `text("é ✓ 𝄞");`},
		{"@shell/x 1:ab12 edited", `text("@shell/x 1:ab12 edited");`},
	}
	for _, c := range cases {
		if got := response.PrintCarrier(c.in); got != c.want {
			t.Errorf("PrintCarrier(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// ReportPrefix starts exactly the carriers that print a checked edit's
// report, whose first line is a script's reference; a refusal, which
// PrintCarrier writes as "hpatch: …", never does.
func TestReportPrefix(t *testing.T) {
	if response.ReportPrefix != `text("`+scriptref.RefPrefix {
		t.Fatalf("ReportPrefix %q", response.ReportPrefix)
	}
	for in, report := range map[string]bool{
		"@shell/call_1 1:ab12 edited":    true,
		"@shell/a\n@shell/b":             true,
		"hpatch: @shell/call_1 is stale": false,
		" @shell/call_1":                 false,
		"":                               false,
	} {
		if got := strings.HasPrefix(response.PrintCarrier(in), response.ReportPrefix); got != report {
			t.Errorf("PrintCarrier(%q) starts ReportPrefix: %v", in, got)
		}
	}
}

// PrintedText reads back the text of a carrier that is one text() call
// of one JSON string, and refuses any other carrier. It takes any such
// carrier, not only PrintCarrier's spelling: a declared tool's rejection
// (shebang.ToolRejectionCarrier) reads back too, with its newline.
func TestPrintedText(t *testing.T) {
	cases := []struct {
		carrier, text string
		ok            bool
	}{
		{response.PrintCarrier("<b>\"x\"</b>\n"), "<b>\"x\"</b>\n", true},
		{response.PrintCarrier("bad \xff"), "bad \ufffd", true},
		{`text("a\u0026b");`, "a&b", true},
		{shebang.ToolRejectionCarrier("fmt", errors.New("no")), "fmt: no\n", true},
		{`text("a")`, "", false},
		{`text("a");text("b");`, "", false},
		{`text('a');`, "", false},
		{` text("a");`, "", false},
		{"run(direct|ls\n|false|)", "", false},
	}
	for _, c := range cases {
		if text, ok := response.PrintedText(c.carrier); text != c.text || ok != c.ok {
			t.Errorf("PrintedText(%q) = %q, %v; want %q, %v", c.carrier, text, ok, c.text, c.ok)
		}
	}
}

// EditReport reads the report of a checked edit's carrier and nothing
// else: not a refusal, not another print, not a carrier that is no print.
func TestEditReport(t *testing.T) {
	report := scriptref.RefPrefix + "call_1\n2:abcd x\n"
	for _, c := range []struct {
		carrier, report string
		ok              bool
	}{
		{response.PrintCarrier(report), report, true},
		{response.PrintCarrier("hpatch: line 1: stale"), "", false},
		{response.PrintCarrier("Script completed"), "", false},
		{`text("@shell/x") + 1;`, "", false},
		{`await tools.exec_command({"cmd":"shell x"});`, "", false},
	} {
		if got, ok := response.EditReport(c.carrier); got != c.report || ok != c.ok {
			t.Errorf("EditReport(%q) = %q, %v; want %q, %v", c.carrier, got, ok, c.report, c.ok)
		}
	}
}
