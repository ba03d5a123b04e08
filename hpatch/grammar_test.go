package hpatch

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"hpatch-router/internal/testenv"
	"hpatch-router/plugins"
	"hpatch-router/rows"
	"hpatch-router/scriptref"
)

// The `hpatch` tool declares a Lark grammar (plugins/hpatch.lark) so the
// model API can only sample edits that parse. TestGrammarAgreement keeps
// that grammar and Parse in step: on every edit the hpatch and retain tests and
// fuzz corpus hold, the e2e scenarios' edits, the explicit cases below,
// generated edits and their one-byte mutations, Parse, an LALR(1)
// parser and an Earley parser of the grammar (python3-lark) give the same
// verdict. The one difference is by design: the grammar takes any one word
// as an id, and which words name a retained script is the store's rule
// (ParseRef), so an edit Parse rejects only for its ids is counted
// apart (TestGrammarLeavesIDsToStore). It needs Debian's python3-lark
// (`.ci/run` installs it): without it the tests skip, and fail under
// CI=true.

// grammarAccepts are edits at the edges of the grammar that both accept.
func grammarAccepts() []string {
	return []string{
		"in @shell/a\ntype 1:abcd \"x\"",
		"\r\n \t\r  in \t @shell/a \t\r\n\t\ttype\t1:abcd  \"\"\t\r\n\n",
		"in @shell/a\ntype 1:abcd..123456789:ffff <<PATCH\nPATCHX\n PATCH\nPATC\nP\n\nPATCH \nin @shell/b\nPATCH",
		"in @shell/a\rtype 1:abcd <<PATCH  \rPATCH\radd EOF <<PATCH\r\rPATCH\r",
		"in @shell/a\r\nadd EOF <<PATCH\r\n\r\nPATCH",
		"in @shell/a\nadd EOF \"\\n\"",
		"in @shell/a\nadd 7:0000 \"\\u00e9\\ud800\\\"\\\\\\/\\b\\f\\r\\t é\x7f\"",
		"in @shell/.r\ntype 1:abcd \"\"\nin @shell/..x\ntype 1:abcd \"\"\nin @shell/.runtimes\ntype 1:abcd \"\"",
		"in @shell/.hpatch-tmp\ntype 1:abcd \"\"\nin @shell/é\ntype 1:abcd \"\"",
		"in @shell/a\ntype 1:abcd \"x\"\nin @shell/b\nadd EOF \"y\"\nin @shell/a\nadd 2:abcd \"z\"",
		"in @shell/a\ntype 3:abcd..2:abcd \"x\"", // range order is Apply's (a grammar cannot compare numbers)
		"in  src/main.go\ntype 1:abcd \"x\"",
		"in a\rmv \"b c\" \t\r\ntype \"x\" 12 \"y\"\nadd \"\\t\\u00e9\\\"\"\t1 <<PATCH\nz\nPATCH\nin rm\nrm \nnew new\n\n type <<PATCH\nPATCH\n",
		"new a\ntype \"\"\nin /abs/b\nmv c\nin \"x\"\nrm\nin a\"b\ntype \"t\" \"\"",
		"in @shell/a\ntype \"x\" 999999999 \"\"\nadd \"\\u000b\" \"y\"",
	}
}

// grammarRejects are malformed edits that both reject.
func grammarRejects() []string {
	return []string{
		"", " \n\t\n", "type 1:abcd \"x\"", "in @shell/a", "in @shell/a\n", "in @shell/a\nin @shell/b\ntype 1:abcd \"x\"",
		"in @shell/a\ntype 1:abcd \"x\"\nin @shell/a", "in @shell/a b\ntype 1:abcd \"x\"",
		"in @shell/\ntype 1:abcd \"x\"", "in\t\n@shell/a\ntype 1:abcd \"x\"", "in@shell/a\ntype 1:abcd \"x\"",
		"in @shell/a\ntype 0:abcd \"x\"", "in @shell/a\ntype 01:abcd \"x\"", "in @shell/a\ntype 1234567890:abcd \"x\"",
		"in @shell/a\ntype 1:ABCD \"x\"", "in @shell/a\ntype 1:abc \"x\"", "in @shell/a\ntype EOF \"x\"",
		"in @shell/a\nadd 1:abcd..2:abcd \"x\"", "in @shell/a\nadd 1:abcd \"\"", "in @shell/a\nadd EOF <<PATCH\nPATCH",
		"in @shell/a\nadd EOF <<PATCH\r\nPATCH", "in @shell/a\ntype 1:abcd", "in @shell/a\ntype 1:abcd ", "in @shell/a\ntype",
		"in @shell/a\ntype 1:abcd \"x\" y", "in @shell/a\ntype 1:abcd \"x\"\v", "in @shell/a\ntype 1:abcd x",
		"in @shell/a\ntype 1:abcd \"\\u0000\"", "in @shell/a\ntype 1:abcd \"\\q\"", "in @shell/a\ntype 1:abcd \"a\tb\"",
		"in @shell/a\ntype 1:abcd 'x'", "in @shell/a\ntype 1:abcd <<EOF\nx\nEOF", "in @shell/a\ntype 1:abcd << PATCH\nPATCH",
		"in @shell/a\ntype 1:abcd <<PATCH", "in @shell/a\ntype 1:abcd <<PATCH\nx\n PATCH", "in @shell/a\ntype 1:abcd <<PATCH\nPATCH ",
		"in @shell/a\ntype 1:abcd <<PATCH\nx\x00\nPATCH", "in @shell/a\ntype1:abcd \"x\"", "in @shell/a\nreplace 1:abcd \"x\"",
		"in @shell/a\ntype 1:abcd \"x\"\nPATCH", "in @shell/a\n\v\ntype 1:abcd \"x\"", "\u00a0in @shell/a\ntype 1:abcd \"x\"",
		"\ufeffin @shell/a\ntype 1:abcd \"x\"", "in @shell/a\ntype 1:abcd \"x\"\x00",
		"in a\ntype 1:abcd \"x\"\nin @shell/b\ntype 1:abcd \"x\"", "in @shell/b\ntype 1:abcd \"x\"\nin a\nrm", "in a\nrm\ntype 1:abcd \"x\"",
		"in a\nmv b\nmv c", "in a\ntype 1:abcd \"x\"\nmv b", "in a\nrm x", "in a b\nrm", "in \"\"\nrm", "new a", "new a\nadd EOF \"x\"",
		"new a\ntype 1:abcd \"x\"", "new a\ntype \"x\"\ntype 1:abcd \"\"", "in @a\nrm", "new @shell/a\ntype \"\"", "in @shell/a\nrm",
		"in a\ntype \"x\"3 \"y\"", "in a\ntype \"x\" 0 \"y\"", "in a\ntype \"x\" 1234567890 \"y\"", "in a\ntype \"\" \"y\"",
		"in a\ntype \"x\"..1:abcd \"y\"", "in a\nadd \"x\" 2 \"\"", "in a\ntype \"x\" 2", "in a\nrmx", "in a\nmv", "in a\nmv b c",
		"mv b", "rm", "in a\nadd \"\\u0000\" \"y\"",
	}
}

func TestGrammarAgreement(t *testing.T) {
	py := larkPython(t)
	type source struct {
		name  string
		edits []string
	}
	sources := []source{
		{"hpatch and retain tests", testLiterals(t)},
		{"fuzz seeds", fuzzSeedEdits()},
		{"fuzz corpus", fuzzCorpusEdits(t)},
		{"grammar cases", append(grammarAccepts(), grammarRejects()...)},
		{"e2e scenarios", scenarioEdits(t)},
		{"generated", generatedEdits(3000)},
	}
	var valid []string
	for _, src := range sources {
		for _, e := range src.edits {
			if _, err := Parse(e); err == nil {
				valid = append(valid, e)
			}
		}
	}
	sources = append(sources, source{"mutated (1 byte)", mutatedEdits(valid, 4000)})
	var edits []string
	var from []string
	for _, src := range sources {
		n := 0
		for _, e := range src.edits {
			if utf8.ValidString(e) { // the API samples text; Parse rejects invalid UTF-8 first
				edits = append(edits, e)
				n++
			}
		}
		from = append(from, src.name+" "+strconv.Itoa(n))
	}
	verdicts := larkVerdicts(t, py, plugins.HpatchGrammar(), edits)
	accepted, rejected, idRule, bad := 0, 0, 0, 0
	for i, e := range edits {
		_, err := Parse(e)
		goOK := err == nil
		v := verdicts[i]
		switch {
		case !goOK && v[0] && v[1] && parses(withValidIDs(e)):
			idRule++
			continue
		case goOK:
			accepted++
		default:
			rejected++
		}
		if v[0] != goOK || v[1] != goOK {
			if bad++; bad <= 20 {
				t.Errorf("Parse accepts=%v (%v) but grammar LALR=%v Earley=%v for %q", goOK, err, v[0], v[1], e)
			}
		}
	}
	for _, e := range grammarAccepts() {
		if _, err := Parse(e); err != nil {
			t.Errorf("grammar case %q must parse: %v", e, err)
		}
	}
	for _, e := range grammarRejects() {
		if _, err := Parse(e); err == nil {
			t.Errorf("grammar case %q must be rejected", e)
		}
	}
	t.Logf("%d edits (%s): %d accepted and %d rejected by Parse, LALR and Earley alike, %d rejected by Parse for their ids only; %d disagreements",
		len(edits), strings.Join(from, ", "), accepted, rejected, idRule, bad)
}

// The difference by design: the grammar takes one word as an id, and the
// store's rule says which words name a retained script; Parse checks
// it (ParseRef) and its error says what is wrong.
func TestGrammarLeavesIDsToStore(t *testing.T) {
	py := larkPython(t)
	ids := []string{".", "..", ".runtime", ".hpatch-tmp-1", "a/b", `a\b`, "a\vb", "a\u00a0b", strings.Repeat("a", 256)}
	var edits []string
	for _, id := range ids {
		edits = append(edits, "in @shell/"+id+"\ntype 1:abcd \"x\"")
	}
	v := larkVerdicts(t, py, plugins.HpatchGrammar(), edits)
	for i, e := range edits {
		_, err := Parse(e)
		if pe, ok := err.(*Error); !ok || pe.Line != 1 || !v[i][0] || !v[i][1] || !parses(withValidIDs(e)) {
			t.Errorf("id %.20q: Parse must reject it on line 1 (got %v) and the grammar accept it (got %v)", ids[i], err, v[i])
		}
	}
}

func parses(edit string) bool {
	_, err := Parse(edit)
	return err == nil
}

// withValidIDs replaces the id of every `in @shell/<id>` line by "x".
func withValidIDs(edit string) string {
	var b strings.Builder
	for _, r := range rows.Split([]byte(edit)) {
		line := string(r.Text)
		if word, rest := cutSpace(trimBlank(line)); word == "in" && strings.HasPrefix(trimBlank(rest), scriptref.RefPrefix) {
			line = "in " + scriptref.RefPrefix + "x"
		}
		b.WriteString(line)
		b.Write(r.Term)
	}
	return b.String()
}

// larkPython finds a python3 that imports lark: Debian's first (python3 on
// PATH may be a slow shim), then PATH's.
func larkPython(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(py); err == nil && exec.Command(path, "-c", "import lark").Run() == nil {
			return path
		}
	}
	testenv.Missing(t, "python3-lark", "python3 with lark is not installed")
	return ""
}

// larkVerdicts parses each edit with the grammar (testdata/lark_agree.py)
// and returns [LALR, Earley] acceptance per edit.
func larkVerdicts(t *testing.T, py, grammar string, edits []string) [][2]bool {
	t.Helper()
	in, err := json.Marshal(map[string]any{"grammar": grammar, "edits": edits})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, filepath.Join("testdata", "lark_agree.py"))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("lark: %v\n%s", err, stderr.String())
	}
	var v [][2]bool
	if err := json.Unmarshal(out, &v); err != nil || len(v) != len(edits) {
		t.Fatalf("lark answered %d verdicts for %d edits (%v)", len(v), len(edits), err)
	}
	return v
}

// testLiterals are the string literals of this package's tests and of the
// retained-script store's (package retain, whose edits are hpatch input
// too), with the {N} row citations of patch templates (see cite) replaced
// by a well-formed LINE:HASH: whether an edit parses does not depend on
// the hash's value.
func testLiterals(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob("*_test.go")
	store, _ := filepath.Glob(filepath.Join("..", "retain", "*_test.go"))
	files = append(files, store...)
	citation := regexp.MustCompile(`\{(\d+)\}`)
	var out []string
	fset := token.NewFileSet()
	for _, name := range files {
		if name == "grammar_test.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					out = append(out, citation.ReplaceAllString(s, "$1:0a1b"))
				}
			}
			return true
		})
	}
	return out
}

// scenarioEdits are the hpatch inputs the end-to-end scenarios send as
// the model (testdata/scenarios/e2e).
func scenarioEdits(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "scenarios", "e2e", "*.json"))
	var out []string
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var sc struct {
			Steps []struct {
				Call struct{ Name, Input string } `json:"custom_tool_call"`
			} `json:"steps"`
		}
		if err := json.Unmarshal(data, &sc); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, st := range sc.Steps {
			if st.Call.Name == "hpatch" {
				out = append(out, st.Call.Input)
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no hpatch call in testdata/scenarios/e2e")
	}
	return out
}

// fuzzSeedEdits are the edits the fuzz targets start from.
func fuzzSeedEdits() []string {
	out := parsePatchSeeds()
	for _, s := range applyCitedSeeds() {
		if p, _, _, ok := citedPatch(s.base, s.value, s.kind, s.a, s.b); ok {
			out = append(out, p)
		}
	}
	return out
}

// fuzzCorpusEdits are the edits of the committed fuzz corpus
// (testdata/fuzz, "go test fuzz v1" files).
func fuzzCorpusEdits(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, target := range []string{"FuzzParsePatch", "FuzzApplyCited"} {
		files, _ := filepath.Glob(filepath.Join("testdata", "fuzz", target, "*"))
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			vals := corpusValues(t, file, string(data))
			switch {
			case target == "FuzzParsePatch" && len(vals) == 2:
				out = append(out, vals[0])
			case target == "FuzzApplyCited" && len(vals) == 5:
				if p, _, _, ok := citedPatch(vals[0], vals[1], vals[2][0], vals[3][0], vals[4][0]); ok {
					out = append(out, p)
				}
			default:
				t.Fatalf("%s: %d values, not %s's inputs", file, len(vals), target)
			}
		}
	}
	return out
}

// corpusValues decodes the values of a "go test fuzz v1" file: string(…),
// []byte(…) and byte(…) lines, each as its bytes.
func corpusValues(t *testing.T, file, data string) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(data), "\n")
	var out []string
	for _, l := range lines[1:] {
		kind, lit, ok := strings.Cut(l, "(")
		lit = strings.TrimSuffix(lit, ")")
		if !ok {
			t.Fatalf("%s: bad line %q", file, l)
		}
		switch kind {
		case "string", "[]byte":
			s, err := strconv.Unquote(lit)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			out = append(out, s)
		case "byte", "uint8":
			var b uint64
			var err error
			if strings.HasPrefix(lit, "'") {
				var r rune
				r, _, _, err = strconv.UnquoteChar(lit[1:len(lit)-1], '\'')
				b = uint64(r)
			} else {
				b, err = strconv.ParseUint(lit, 0, 8)
			}
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			out = append(out, string([]byte{byte(b)}))
		default:
			t.Fatalf("%s: unsupported value type %q", file, kind)
		}
	}
	return out
}
