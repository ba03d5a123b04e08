package registry

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"hpatch-router/internal/testenv"
)

// runExample runs a tool's command as the worker does (the input on
// standard input, or on fd 3 with /dev/fd/3 appended) in dir.
func runExample(t *testing.T, tl *Tool, dir, input string) string {
	t.Helper()
	args := tl.Spec.Run
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	if tl.Spec.Stdin {
		cmd.Stdin = strings.NewReader(input)
	} else {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() { w.WriteString(input); w.Close() }()
		cmd.ExtraFiles = []*os.File{r}
		cmd.Args = append(cmd.Args, "/dev/fd/3")
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", tl.Name, err, out)
	}
	return string(out)
}

// The shipped examples do what their descriptions say.
func TestExamplesRun(t *testing.T) {
	set, probs := Load("../examples", LoadOptions{})
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	t.Run("sql", func(t *testing.T) {
		testenv.NeedTool(t, "sqlite3")
		dir := t.TempDir()
		out := runExample(t, set.Lookup("sql"), dir, "create table t(x);\ninsert into t values (7);\nselect x from t;")
		if out != "x\n7\n" {
			t.Errorf("sql printed %q", out)
		}
		if _, err := os.Stat(filepath.Join(dir, "dev.sqlite3")); err != nil {
			t.Error("no dev.sqlite3 in the working directory")
		}
	})
	t.Run("py", func(t *testing.T) {
		testenv.NeedTool(t, "python3")
		if out := runExample(t, set.Lookup("py"), t.TempDir(), "import sys\nprint(sys.flags.isolated)"); out != "1\n" {
			t.Errorf("py printed %q", out)
		}
	})
	t.Run("gotest", func(t *testing.T) {
		testenv.NeedTool(t, "go")
		dir := t.TempDir()
		must(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module m\n\ngo 1.22\n"), 0o600))
		must(t, os.WriteFile(filepath.Join(dir, "a_test.go"), []byte("package m\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n\nfunc TestB(t *testing.T) { t.Fatal(\"ran\") }\n"), 0o600))
		if out := runExample(t, set.Lookup("gotest"), dir, "./... TestA"); !strings.HasPrefix(out, "ok") {
			t.Errorf("gotest printed %q", out)
		}
	})
}
