package hpatchwrite

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hpatch-router/hpatch"
	"hpatch-router/privname"
	"hpatch-router/retain"
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
	args := []string{privname.HpatchWrite, "--expect", expect, "--cwd", env.Cwd}
	for _, r := range env.Roots {
		args = append(args, "--root", r)
	}
	args = append(append(args, extra...), edit)
	pe := &privcmd.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: env.Cwd, Limits: privcmd.Bounds(privname.HpatchWrite)}
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

// A call resolved on top of an earlier call of the same response (issue 33
// case 6) writes once that call wrote; when it did not, the refusal names
// it instead of blaming an outside change.
func TestAfterAnEarlierCall(t *testing.T) {
	tests := []struct {
		name       string
		firstRuns  bool
		outside    bool // a.txt also changes outside
		wantCode   int
		wantStderr string
		wantFile   string
	}{
		{"the earlier call wrote", true, false, 0, "", "ONE\r\nTWO"},
		{"the earlier call did not write", false, false, 1, "hpatch: this edit was checked on top of hpatch call call_1 earlier in this response, which did not write (its own output says why); nothing was written", "one\r\ntwo"},
		{"the earlier call wrote, then an outside change", true, true, 1, "hpatch: the files of this edit changed after the router checked it", "ONE\r\ntwo\r\noutside"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, env := setup(t)
			ctx := context.Background()
			var pd workspace.Pending
			first, later := "in a.txt\ntype \"one\" \"ONE\"", "in a.txt\ntype \"two\" \"TWO\""
			plan1, err := pd.Resolve(ctx, env, parse(t, first))
			if err != nil {
				t.Fatal(err)
			}
			pd.Add("call_1", plan1)
			plan2, err := pd.Resolve(ctx, env, parse(t, later))
			if err != nil || len(plan2.After) != 1 {
				t.Fatalf("later plan %+v, %v", plan2, err)
			}
			if tc.firstRuns {
				if code, _, errs := run(env, plan1.Digest(), first); code != 0 {
					t.Fatalf("the first call: %s", errs)
				}
			}
			if tc.outside {
				os.WriteFile(filepath.Join(root, "a.txt"), []byte("ONE\r\ntwo\r\noutside"), 0o644)
			}
			code, out, errs := run(env, plan2.Digest(), later, "--after", "call_1:"+plan2.After[0].State)
			if code != tc.wantCode || !strings.HasPrefix(errs, tc.wantStderr) || (code == 0) != (out == plan2.Report) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, stderr %q", code, out, errs, tc.wantCode, tc.wantStderr)
			}
			if data, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(data) != tc.wantFile {
				t.Fatalf("a.txt = %q, want %q", data, tc.wantFile)
			}
		})
	}
}

func parse(t *testing.T, edit string) *hpatch.Patch {
	t.Helper()
	p, err := retain.ParsePatch(edit)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
