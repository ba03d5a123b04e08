package router

import (
	"os"
	"path/filepath"
	"testing"

	"hpatch-router/router/routertest"
)

// captureDir holds the shared captures of real Codex requests.
const captureDir = "../testdata/codex/captures"

func readCapture(t testing.TB, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(captureDir, file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// synthetic1MB grows a real 0.169 request to about 1 MiB with a long
// conversation of exec calls and outputs after the tools item, the shape a
// long Codex session reaches.
func synthetic1MB(b testing.TB) []byte {
	base := routertest.CompactJSON(b, readCapture(b, "cli-lite-exec/001-post.json"))
	return routertest.Conversation(b, base, 0, func(n int) bool { return n < 1<<20 })
}
