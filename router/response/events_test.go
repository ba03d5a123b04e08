package response

import (
	"strings"
	"testing"

	"hpatch-router/shebang"
)

// The dashboard's script-free reason names a refused habit by its fixed
// name and never quotes the program the diagnostic shows the model.
func TestScriptFreeReasonNamesTheHabit(t *testing.T) {
	_, err := shebang.Translate(`{"cmd":"echo s3cret"}`, shebang.Options{})
	if err == nil {
		t.Fatal("a JSON wrapper was accepted")
	}
	got := scriptFreeReason("shell", err)
	if !strings.HasPrefix(got, "shell: line 1: json rejected") || strings.Contains(got, "s3cret") {
		t.Fatalf("reason %q", got)
	}
}
