//go:build linux

package hsymbol

import (
	"os"
	"path/filepath"
	"strings"

	"hpatch-router/worker/privcmd"
)

// server is how hsymbol starts one language's server.
type server struct {
	name       string   // executable looked up on the shell's PATH
	args       []string // arguments selecting LSP over stdio
	languageID string   // LSP languageId of the opened document
	install    string   // how to get the server, for the error naming it
	markers    []string // files that mark a workspace root, nearest first
	sources    []string // name suffixes of the files it reads (tree.go)
	// needs are commands the server runs itself: without them it starts
	// and answers every query with an error that names no cause (gopls
	// without go: "no views").
	needs []string
}

// serverFor returns the server for an inspect language name.
func serverFor(lang string) (server, bool) {
	switch lang {
	case "go":
		return server{name: "gopls", languageID: "go",
			install: "go install golang.org/x/tools/gopls@latest", needs: []string{"go"},
			markers: []string{"go.work", "go.mod"},
			sources: []string{".go", "go.mod", "go.sum", "go.work", "go.work.sum"}}, true
	case "python":
		return server{name: "pyright-langserver", args: []string{"--stdio"}, languageID: "python",
			install: "npm install -g pyright",
			markers: []string{"pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg"},
			sources: []string{".py", ".pyi", "pyrightconfig.json", "pyproject.toml", "setup.cfg"}}, true
	case "javascript", "typescript", "tsx":
		id := map[string]string{"javascript": "javascript", "typescript": "typescript", "tsx": "typescriptreact"}[lang]
		return server{name: "typescript-language-server", args: []string{"--stdio"}, languageID: id,
			install: "npm install -g typescript-language-server typescript",
			markers: []string{"tsconfig.json", "jsconfig.json", "package.json"},
			sources: []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".json"}}, true
	}
	return server{}, false
}

// workspaceRoot is the nearest ancestor of file's directory holding one of
// the server's markers (for Go: go.mod, or go.work above it); without one,
// the shell's cwd when file is inside it, else file's directory.
func workspaceRoot(s server, file, cwd string) string {
	start := filepath.Dir(file)
	best := ""
	for dir := start; ; dir = filepath.Dir(dir) {
		for _, m := range s.markers {
			if fi, err := os.Stat(filepath.Join(dir, m)); err == nil && fi.Mode().IsRegular() {
				if m == "go.work" { // a workspace file above the module wins
					return dir
				}
				if best == "" {
					best = dir
				}
			}
		}
		if parent := filepath.Dir(dir); parent == dir {
			break
		}
	}
	if best != "" {
		return best
	}
	if within(cwd, file) {
		return cwd
	}
	return start
}

// within reports whether path is dir or inside it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// initOptions are the initializationOptions for srv in root. For
// typescript-language-server, which needs a TypeScript with tsserver (5.x or
// older) and finds only one in the workspace's node_modules by itself, it
// names the tsserver.js of a `tsserver` on the shell's PATH.
func initOptions(env *privcmd.Env, srv server, root string) map[string]any {
	if srv.name != "typescript-language-server" {
		return nil
	}
	if fi, err := os.Stat(filepath.Join(root, "node_modules", "typescript", "lib", "tsserver.js")); err == nil && fi.Mode().IsRegular() {
		return nil
	}
	bin, err := env.LookPath("tsserver")
	if err != nil {
		return nil
	}
	if real, err := filepath.EvalSymlinks(bin); err == nil {
		bin = real
	}
	js := filepath.Join(filepath.Dir(filepath.Dir(bin)), "lib", "tsserver.js")
	if _, err := os.Stat(js); err != nil {
		return nil
	}
	return map[string]any{"tsserver": map[string]any{"path": js}}
}
