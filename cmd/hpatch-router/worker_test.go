package main

import (
	"io"
	"os"
	"strings"
	"testing"
)

// The router binary entered as "shell" is the worker: without an
// authenticated runtime it refuses with one line and a shell status, and
// runs nothing.
func TestRunWorkerRefusesWithoutRuntime(t *testing.T) {
	t.Setenv("HPATCH_RUNTIME_DIR", t.TempDir())
	t.Setenv("CODEX_THREAD_ID", "no-such-thread")
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	code := runWorker([]string{"bash", "echo ran"}, stdio{os.Stdin, outW, errW})
	errW.Close()
	outW.Close()
	msg, _ := io.ReadAll(errR)
	out, _ := io.ReadAll(outR)
	if code != 127 || len(out) != 0 || !strings.HasPrefix(string(msg), "shell: no runtime for this thread") || strings.Count(string(msg), "\n") != 1 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, msg)
	}
}
