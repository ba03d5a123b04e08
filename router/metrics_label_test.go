package router

import "testing"

func TestLabelQuotesAsPercentQ(t *testing.T) {
	for _, c := range []struct{ k, v, want string }{
		{"route", "responses", `route="responses"`},
		{"kind", `a"b\c`, `kind="a\"b\\c"`},
		{"code", "line\nbreak", `code="line\nbreak"`},
		{"kind", "", `kind=""`},
	} {
		if got := label(c.k, c.v); got != c.want {
			t.Errorf("label(%q, %q) = %s, want %s", c.k, c.v, got, c.want)
		}
	}
}
