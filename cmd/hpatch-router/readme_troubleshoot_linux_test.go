package main

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"hpatch-router/worker/snapshot"
)

// TestREADMETroubleshootNotFoundMessages: the README's Troubleshoot entries
// for exit 127 quote what the helper prints when it finds no runtime —
// the first thing a new user sees when Codex and the router disagree. Each
// quote, its "…" standing for a path, must match the refusal the helper's
// own check (snapshot.Locate) gives for an unset thread id and for a thread
// the router never prepared, and every such refusal must be quoted.
func TestREADMETroubleshootNotFoundMessages(t *testing.T) {
	section := readmeSection(t, "## Troubleshoot")
	root := t.TempDir()
	var refusals []string
	for _, thread := range []string{"", "never-prepared"} {
		_, err := snapshot.Locate(root, thread, os.Getuid())
		var r *snapshot.Refusal
		if !errors.As(err, &r) || r.Code != snapshot.ExitNotFound {
			t.Fatalf("Locate(%q) = %v, want a refusal with exit %d", thread, err, snapshot.ExitNotFound)
		}
		refusals = append(refusals, "shell: "+r.Msg)
	}
	entry := regexp.MustCompile("(?m)^- \\*\\*`(shell: [^`]*)` \\(127\\)\\*\\*")
	quoted := entry.FindAllStringSubmatch(section, -1)
	for _, msg := range refusals {
		found := false
		for _, q := range quoted {
			pattern := "^" + strings.ReplaceAll(regexp.QuoteMeta(q[1]), "…", ".+")
			if regexp.MustCompile(pattern).MatchString(msg) {
				found = true
			}
		}
		if !found {
			t.Errorf("the helper prints %q, but no Troubleshoot entry marked (127) quotes it (entries: %q)", msg, quoted)
		}
	}
}
