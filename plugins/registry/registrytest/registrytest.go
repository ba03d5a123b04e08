package registrytest

import (
	"os"
	"path/filepath"
	"testing"

	"hpatch-router/plugins/registry"
)

// TwoTools is a tool file declaring two tools: sql (sqlite3 reading its
// input on stdin) and py (python3, with a default yield_time_ms).
const TwoTools = `[[tool]]
name = "sql"
description = "Run SQL."
run = ["sqlite3", "-bail"]
input = "stdin"
[[tool]]
name = "py"
description = "Run Python."
run = ["python3"]
params = { yield_time_ms = 5000 }
`

// Load loads a tools directory holding one file with content, failing the
// test if registry reports any problem.
func Load(t testing.TB, content string) *registry.Set {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.toml"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	set, probs := registry.Load(dir, registry.LoadOptions{})
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	return set
}
