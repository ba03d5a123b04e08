package main

import (
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "hpatch-router"

// ourImports lists, for each of the module's packages (relative to the
// module root), the module's packages it imports; build constraints as
// this machine's (Linux).
func ourImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".") || name == "node_modules") {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(path, 0)
		if err != nil {
			if _, none := err.(*build.NoGoError); none {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, path)
		var ours []string
		for _, imp := range p.Imports {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				ours = append(ours, strings.TrimPrefix(imp, module+"/"))
			}
		}
		pkgs[filepath.ToSlash(rel)] = ours
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 15 {
		t.Fatalf("found %d packages under %s; the walk is broken", len(pkgs), root)
	}
	return pkgs
}

// within reports whether pkg is dir or below it.
func within(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

// TestDependenciesPointOneWay holds DESIGN §2's arrows: cmd → router →
// {plugins, shebang, retain, workspace}, router → router/threadstate →
// retain, router → router/sse (the SSE framing, nothing of ours), router →
// router/response (the response rewrite, never back to router), plugins → shebang (a declared
// tool's run, cmd and params follow the shebang rules), cmd → worker →
// {retain, workspace},
// workspace → retain; shebang imports nothing of ours but the leaves and
// its own subpackages; the helper stays small. worker/snapshot, ident,
// rows, regfile, jsonline, scriptref, privname and hpatch are leaves every side may
// name (the runtime's directory names, the id rules, the line and row-hash
// rule, how a file the model named is opened, how a JSON value is
// written as one line of text, the `@shell/<id>` reference
// grammar, the private command names, the hpatch edit language); a leaf
// imports only the standard library and the leaves its rule lists.
func TestDependenciesPointOneWay(t *testing.T) {
	leaves := []string{"ident", "rows", "regfile", "jsonline", "scriptref", "privname", "hpatch", "worker/snapshot"}
	// Besides the leaves, what a package and its subpackages may import.
	rules := []struct {
		pkg     string
		allowed []string
	}{
		{"ident", nil},
		{"rows", []string{"jsonline"}},
		{"jsonline", nil},
		{"regfile", nil},
		{"scriptref", []string{"ident", "rows"}},
		{"privname", nil},
		{"hpatch", []string{"rows", "scriptref"}},
		{"plugins", []string{"plugins", "shebang"}},
		{"shebang", []string{"shebang"}},
		{"retain", []string{"shebang", "retain"}},
		{"workspace", []string{"retain", "workspace"}},
		{"router", []string{"plugins", "retain", "shebang", "workspace", "router", "internal"}},
		// The thread state sits below the router: the router calls it, it
		// never calls back.
		{"router/threadstate", []string{"retain"}},
		// The request stage sits below the router's proxy core: it never
		// imports router or its other parts.
		{"router/request", []string{"plugins", "shebang", "workspace"}},
		// The server-sent event framing knows nothing of the rewrite: it
		// imports nothing of ours.
		{"router/sse", nil},
		// The response rewrite sits below the router's proxy core: the
		// router calls it per response and per event, it never imports
		// router; it records carriers in the thread state and reads the
		// request stage's facts.
		{"router/response", []string{"plugins", "retain", "shebang", "workspace", "router/request", "router/sse", "router/threadstate"}},
		// The history stage reads a request's input against the thread
		// state between the request stage's parse and its rewrite: it
		// returns the restore's edits to the router, never imports it;
		// it reads the carriers the response stage made.
		{"router/history", []string{"retain", "router/request", "router/response", "router/threadstate"}},
		{"worker/snapshot", []string{"ident"}},
		{"worker", []string{"retain", "shebang", "workspace", "worker", "internal"}},
		{"cmd/shell-helper", []string{"shebang/oneline", "internal"}},
		{"cmd/hpatch-router", []string{"plugins", "retain", "router", "shebang", "worker", "internal"}},
		{"internal", []string{"internal"}},
	}
	for pkg, imports := range ourImports(t, "../..") {
		// The most specific rule: worker/snapshot before worker.
		var rule []string
		matched := ""
		for _, r := range rules {
			if within(pkg, r.pkg) && len(r.pkg) > len(matched) {
				rule, matched = r.allowed, r.pkg
			}
		}
		if matched == "" {
			t.Errorf("package %s has no rule here; add it to DESIGN §2's layout and to this table", pkg)
			continue
		}
		for _, imp := range imports {
			ok := slices.ContainsFunc(rule, func(a string) bool { return within(imp, a) }) ||
				(!slices.Contains(leaves, matched) && slices.Contains(leaves, imp))
			if !ok {
				t.Errorf("%s imports %s: against DESIGN §2 (%s may import %v)", pkg, imp, matched, rule)
			}
		}
	}
}

// TestEveryPackageHasDocGo: each package says what it owns in doc.go, and
// only there, so the owner of a rule is found in one place.
func TestEveryPackageHasDocGo(t *testing.T) {
	root := "../.."
	for pkg := range ourImports(t, root) {
		dir := filepath.Join(root, pkg)
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		hasDoc := false
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case filepath.Base(f) == "doc.go" && file.Doc != nil:
				hasDoc = true
			case filepath.Base(f) != "doc.go" && file.Doc != nil:
				t.Errorf("%s carries a package comment; it belongs in %s/doc.go", f, pkg)
			}
		}
		if !hasDoc {
			t.Errorf("package %s has no doc.go with a package comment saying what it owns", pkg)
		}
	}
}
