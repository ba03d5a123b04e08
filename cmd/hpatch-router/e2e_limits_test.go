package main

import (
	"strings"
	"testing"

	"hpatch-router/router/routertest"
)

// TestE2EBodySizeLimits: a ~100 KB Python body still fits one exec argv
// and runs (the worker feeds it on /dev/fd/3 without deadlock); a body over
// the 131072-byte MAX_ARG_STRLEN gets a concise diagnostic and nothing
// runs (A10). Both originals are replayed byte-exactly.
func TestE2EBodySizeLimits(t *testing.T) {
	t.Parallel()
	big := "#!python3\n" + strings.Repeat("# "+strings.Repeat("x", 98)+"\n", 1000) + "print('big body ran')\n"
	huge := "#!python3\n" + strings.Repeat("# "+strings.Repeat("y", 98)+"\n", 1400) + "print('huge body ran')\n"
	c := e2eCase{
		Scenario: routertest.Scenario{Steps: []routertest.Step{
			shellStep("call_big_1", 16, big),
			shellStep("call_huge_1", 16, huge),
			{Message: "final answer"},
		}},
		Prompt:   "large bodies",
		Requires: []string{"python3"},
		Expect: e2eExpect{Calls: []callExpect{
			{CallID: "call_big_1", Output: []string{"big body ran", `"exit_code":0`}},
			{CallID: "call_huge_1", Output: []string{"shell: ", "argv limit"}, NotOutput: []string{"huge body ran", `"exit_code"`}},
		}},
	}
	checkCase(t, c, runCase(t, c))
}
