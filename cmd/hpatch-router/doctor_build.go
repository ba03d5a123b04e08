//go:build linux

package main

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"fmt"
	"io"
	"os/exec"
	"time"

	"hpatch-router/internal/buildstamp"
	"hpatch-router/worker/snapshot"
)

// helperPackage is the main package path a build of the helper records.
const helperPackage = "hpatch-router/cmd/shell-helper"

// selfStamp is this router's build stamp: the commit and the helper
// protocol, what a helper must share with it for shell calls to work.
func selfStamp() buildstamp.Stamp { return buildstamp.Of(version, snapshot.Protocol) }

// helperStampOf asks the helper at path for its stamp (`shell --version`).
// It runs the file only after its Go build info names the helper package,
// so another program called shell on PATH is never started; a helper of
// this project too old to answer is reported as such.
func helperStampOf(ctx context.Context, path string) (buildstamp.Stamp, error) {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return buildstamp.Stamp{}, fmt.Errorf("%s is not a Go build of hpatch-router's helper: %w", path, err)
	}
	if bi.Path != helperPackage {
		return buildstamp.Stamp{}, fmt.Errorf("%s is a Go build of %s, not of hpatch-router's helper (%s)", path, bi.Path, helperPackage)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = []string{} // nothing of this process reaches it
	var out bytes.Buffer
	cmd.Stdout = &limitedWriter{w: &out, n: 4096}
	if err := cmd.Run(); err != nil {
		return buildstamp.Stamp{}, fmt.Errorf("%s does not answer `shell --version` (%v): a helper built before it could", path, err)
	}
	return buildstamp.Parse(out.String())
}

// limitedWriter keeps the first n bytes written to it and drops the rest.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	keep := min(len(p), l.n)
	l.n -= keep
	if _, err := l.w.Write(p[:keep]); err != nil {
		return 0, err
	}
	return len(p), nil
}

// describeStamp is a stamp in a check's detail.
func describeStamp(s buildstamp.Stamp) string {
	c := s.Commit
	if c == "" {
		c = "unknown"
	}
	if s.Dirty {
		c += "+dirty"
	}
	return fmt.Sprintf("commit %s, protocol %d", c, s.Protocol)
}

// stampNote is the detail's remark when either commit is unknown.
func stampNote(r, h buildstamp.Stamp) string {
	if r.Commit == "" || h.Commit == "" {
		return " (no commit to compare: a build without make's -X main.version or a VCS stamp; compared the protocol only)"
	}
	return ""
}

func clipValue(s string) string {
	if len(s) > 24 {
		return s[:24] + "…"
	}
	return s
}
