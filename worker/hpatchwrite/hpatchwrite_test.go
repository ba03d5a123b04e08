package hpatchwrite

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hpatch-router/retain"
	"hpatch-router/shebang"
	"hpatch-router/worker/privcmd"
	"hpatch-router/workspace"
)

func setup(t *testing.T) (string, workspace.Env) {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\r\ntwo"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, workspace.Env{Cwd: root, Roots: []string{root}}
}

func predict(t *testing.T, env workspace.Env, edit string) *workspace.Plan {
	t.Helper()
	p, err := retain.ParsePatch(edit)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := workspace.Resolve(context.Background(), env, p)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

func run(env workspace.Env, expect, edit string, extra ...string) (int, string, string) {
	var out, errb bytes.Buffer
	args := []string{shebang.HpatchWrite, "--expect", expect, "--cwd", env.Cwd}
	for _, r := range env.Roots {
		args = append(args, "--root", r)
	}
	args = append(append(args, extra...), edit)
	pe := &privcmd.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: env.Cwd, Limits: privcmd.Bounds(shebang.HpatchWrite)}
	code := Run(context.Background(), pe, args)
	return code, out.String(), errb.String()
}

func TestWritesAndPrintsThePredictedReport(t *testing.T) {
	root, env := setup(t)
	edit := "in a.txt\ntype \"two\" \"TWO\"\nnew b/c.txt\ntype \"c\""
	plan := predict(t, env, edit)
	code, out, errs := run(env, plan.Digest(), edit)
	if code != 0 || out != plan.Report || errs != "" {
		t.Fatalf("exit %d, stdout %q (want %q), stderr %q", code, out, plan.Report, errs)
	}
	a, _ := os.ReadFile(filepath.Join(root, "a.txt"))
	c, _ := os.ReadFile(filepath.Join(root, "b/c.txt"))
	if string(a) != "one\r\nTWO" || string(c) != "c\n" {
		t.Fatalf("files %q %q", a, c)
	}
}

func TestRefuses(t *testing.T) {
	tests := []struct {
		name   string
		change func(root string)
		expect func(plan *workspace.Plan) string
		extra  []string
		want   string
	}{
		{"a cited row changed", func(root string) { os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\r\n2"), 0o644) }, nil, nil,
			"hpatch: line 2: \"two\" matches no row of a.txt (2 rows), not 1 row; cite rows from `hread a.txt`; nothing was changed (found when writing; the file changed after the edit was checked)\n"},
		{"another row changed", func(root string) { os.WriteFile(filepath.Join(root, "a.txt"), []byte("ONE\r\ntwo"), 0o644) }, nil, nil,
			"hpatch: the files of this edit changed after the router checked it; nothing was written; read them again with hread\n"},
		{"another digest", nil, func(*workspace.Plan) string { return "0000" }, nil,
			"hpatch: the files of this edit changed after the router checked it"},
		{"an unknown option", nil, nil, []string{"--force", "x"}, "hpatch: unknown option \"--force\"; this command is written by the router's hpatch carrier"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, env := setup(t)
			edit := "in a.txt\ntype \"two\" \"TWO\""
			plan := predict(t, env, edit)
			if tc.change != nil {
				tc.change(root)
			}
			before, _ := os.ReadFile(filepath.Join(root, "a.txt"))
			expect := plan.Digest()
			if tc.expect != nil {
				expect = tc.expect(plan)
			}
			code, out, errs := run(env, expect, edit, tc.extra...)
			if code != 1 || out != "" || !strings.HasPrefix(errs, tc.want) || strings.Count(errs, "\n") != 1 {
				t.Fatalf("exit %d, stdout %q, stderr %q; want stderr starting %q", code, out, errs, tc.want)
			}
			if after, _ := os.ReadFile(filepath.Join(root, "a.txt")); !bytes.Equal(before, after) {
				t.Fatalf("a refused write changed a.txt to %q", after)
			}
		})
	}
}
