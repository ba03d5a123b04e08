package request

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"hpatch-router/plugins/registry"
	"hpatch-router/plugins/registry/registrytest"
)

// Each declared tool is offered after shell and hpatch in the owner's
// container, the same bytes for the same set; a name the request already
// defines there is skipped for that request, not refused; the built-ins'
// bytes are those of a router without tools.
func TestRequestOffersDeclaredTools(t *testing.T) {
	set := registrytest.Load(t, registrytest.TwoTools)
	rewrite := func(body []byte, set *registry.Set) (string, Info) {
		r, err := Parse(body)
		if err != nil {
			t.Fatal(err)
		}
		var rw *Rewriter
		out, info, err := rw.Rewrite(r, set, nil)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, p := range out {
			b.Write(p)
		}
		return b.String(), info
	}
	body := req("", item("at_1", ns("functions", execTool(execDesc), waitTool)))
	plain, _ := rewrite(body, nil)
	got, info := rewrite(body, set)
	again, _ := rewrite(body, set)
	if got != again {
		t.Fatal("the same set gave different bytes")
	}
	hp := gjson.Get(plain, `input.0.tools.0.tools.#(name=="hpatch")`).Raw
	want := strings.Replace(plain, hp, hp+string(set.Inject()), 1)
	if got != want || len(info.Tools) != 2 {
		t.Fatalf("offered\n%s\nwant\n%s", got, want)
	}
	if d := gjson.Get(got, `input.0.tools.0.tools.#(name=="sql").format.type`).String(); d != "text" {
		t.Errorf("sql format %q", d)
	}
	mine := `{"type":"function","name":"sql","description":"mine","parameters":{"type":"object"}}`
	body = req("", item("at_1", ns("functions", execTool(execDesc), mine)))
	got, info = rewrite(body, set)
	if len(info.Tools) != 1 || info.Tools[0].Name != "py" || strings.Join(info.SkippedTools, ",") != "sql" ||
		strings.Count(got, `"name":"sql"`) != 1 || !strings.Contains(got, `"name":"py"`) {
		t.Fatalf("skip: %+v\n%s", info, got)
	}
}
