package shebang

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"hpatch-router/privname"
)

func TestPrivateCall(t *testing.T) {
	edit := "in a b.txt\ntype \"it's\" <<PATCH\n$HOME `x`\nPATCH"
	p, err := PrivateCall([]string{privname.HpatchWrite, "--expect", "ab12", "--cwd", "/w d", "--root", "/w d", edit})
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != KindWorker || p.Retainable || len(p.Warnings) != 0 || !strings.HasPrefix(p.Cmd, "shell bash ") {
		t.Fatalf("plan %+v", p)
	}
	// The body is one Bash command whose words are exactly argv.
	f, err := syntax.NewParser().Parse(strings.NewReader(p.Body), "")
	if err != nil {
		t.Fatal(err)
	}
	call := f.Stmts[0].Cmd.(*syntax.CallExpr)
	var words []string
	for _, w := range call.Args {
		s, ok := literal(w)
		if !ok {
			t.Fatalf("word %d is not literal", len(words))
		}
		words = append(words, s)
	}
	if len(words) != 8 || words[7] != edit || words[4] != "/w d" {
		t.Fatalf("words %q", words)
	}
	c := p.OutputCarrier()
	if !strings.HasPrefix(c, "const result = await tools.exec_command({\"cmd\":") || !strings.Contains(c, `"login":false`) || !strings.Contains(c, "result.output") {
		t.Fatalf("carrier %s", c)
	}
	if _, err := PrivateCall([]string{"rm", "-rf", "/"}); err == nil {
		t.Fatal("a private call ran a command that is not private")
	}
	if _, err := PrivateCall([]string{privname.HpatchWrite, strings.Repeat("x", MaxArgBytes)}); err == nil {
		t.Fatal("an argv over the limit was accepted")
	}
}

// literal is the value of a word after quote removal.
func literal(w *syntax.Word) (string, bool) {
	s, err := expand.Literal(nil, w)
	return s, err == nil
}
