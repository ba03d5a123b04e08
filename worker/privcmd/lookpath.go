package privcmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// LookPath finds the executable a command starts (rg for hgrep, a
// language server for hsymbol) on the evaluation's PATH, not the worker's:
// the model may have changed PATH or the directory in its script. Relative
// PATH entries, an empty entry (the current directory) and names with a
// slash resolve against e.Dir.
func (e *Env) LookPath(name string) (string, error) {
	resolve := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(e.Dir, p)
	}
	executable := func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
	}
	if strings.Contains(name, "/") {
		if p := resolve(name); executable(p) {
			return p, nil
		}
		return "", fmt.Errorf("%s is not an executable file", name)
	}
	for _, d := range filepath.SplitList(e.Getenv("PATH")) {
		if d == "" {
			d = "."
		}
		if p := resolve(filepath.Join(d, name)); executable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on PATH", name)
}
