package main

import (
	"slices"
	"strings"
	"testing"
)

func TestParseTOMLCodexShapes(t *testing.T) {
	src := "\ufeff# Codex config\n" +
		"model = \"gpt-5.6-sol\" # trailing comment\n" +
		"model_provider = 'hpatch'\n" +
		"profile = \"work\"\n" +
		"approvals = [\"a\", 'b',\n  [1, 2], # nested\n]\n" +
		"notify = { cmd = \"x\", args = [\"--y\"] }\n" +
		"desc = \"\"\"\nline one \\\n   continued \"quoted\" \\u00e9\"\"\"\n" +
		"lit = '''\nraw \\n text'''''\n" +
		"\n[model_providers.hpatch]\nname = \"hpatch-router\"\nbase_url = \"http://127.0.0.1:8080/v1\"\n" +
		"requires_openai_auth = true\nhttp_headers = { \"X-A\" = \"b\" }\nstream_max_retries = 5\n" +
		"[model_providers.\"dotted.name\"]\nbase_url = \"https://api.example/v1\"\n" +
		"[[mcp_servers_list]]\nbase_url = \"ignored\"\n" +
		"[profiles.work]\nmodel_provider = \"dotted.name\"\n" +
		"[ other . table ]\nmodel_providers.inline.base_url = \"http://x/v1\"\n"
	doc, err := parseTOML(src)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		path []string
		want string
	}{
		{[]string{"model"}, "gpt-5.6-sol"},
		{[]string{"model_provider"}, "hpatch"},
		{[]string{"desc"}, "line one continued \"quoted\" é"},
		{[]string{"lit"}, "raw \\n text''"},
		{[]string{"notify", "cmd"}, "x"},
		{[]string{"model_providers", "hpatch", "base_url"}, "http://127.0.0.1:8080/v1"},
		{[]string{"model_providers", "hpatch", "http_headers", "X-A"}, "b"},
		{[]string{"model_providers", "dotted.name", "base_url"}, "https://api.example/v1"},
		{[]string{"profiles", "work", "model_provider"}, "dotted.name"},
		{[]string{"other", "table", "model_providers", "inline", "base_url"}, "http://x/v1"},
	}
	for _, c := range checks {
		if got, ok := doc.str(c.path...); !ok || got != c.want {
			t.Errorf("%v = %q (%v), want %q", c.path, got, ok, c.want)
		}
	}
	if v := doc[tomlKey("model_providers", "hpatch", "requires_openai_auth")]; !v.isBool || !v.b {
		t.Errorf("requires_openai_auth = %+v", v)
	}
	if _, ok := doc.str("mcp_servers_list", "base_url"); ok {
		t.Error("array-of-tables keys were recorded")
	}
	names := strings.Join(slices.Sorted(slices.Values(doc.tables("model_providers"))), ",")
	if names != "dotted.name,hpatch" {
		t.Errorf("providers = %s", names)
	}
}

func TestParseTOMLErrorsCarryLine(t *testing.T) {
	for src, line := range map[string]string{
		"a = \"x\"\nb = \"unterminated\n": "line 2",
		"a = 1\n\n[t\n":                   "line 3",
		"a = \"x\" b\n":                   "line 1",
		"x = \"\\q\"\n":                   "line 1",
		"ok = true\nnokey\n":              "line 2",
		"arr = [1,\n2\n3]\n":              "line 3",
		"s = '''\nnever closed\n":         "unterminated",
		"\xff = 1\n":                      "not UTF-8",
	} {
		_, err := parseTOML(src)
		if err == nil || !strings.Contains(err.Error(), line) {
			t.Errorf("%q: err %v, want %s", src, err, line)
		}
	}
}

func FuzzParseTOML(f *testing.F) {
	f.Add("model_provider = \"x\"\n[model_providers.x]\nbase_url = \"http://127.0.0.1:8080/v1\"\n")
	f.Add("a = [1, {b = 'c'}, \"\"\"d\"\"\"]\n")
	f.Fuzz(func(t *testing.T, src string) {
		_, _ = parseTOML(src) // must not panic or loop
	})
}
