//go:build linux

package main

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
)

// buildID is what "the same build" means for the router and the helper.
//
// The helper prints no version, so the doctor reads the Go build info
// embedded in both executables (debug/buildinfo, what `go version -m`
// shows) and compares the fields that a single `make install` (or one `go
// build` of both commands from one checkout) gives both binaries alike:
// the toolchain, the main module's path, version and checksum, the VCS
// stamp (revision, time, modified) and the build settings that change the
// code (-ldflags, which carries -X main.version, -tags, -trimpath,
// GOOS/GOARCH/GOAMD64..., CGO_ENABLED). Package paths differ by design
// (cmd/hpatch-router vs cmd/shell-helper), and so do file hashes, so
// neither is compared. The ID is the SHA-256 of those fields; its first 12
// hex digits are shown.
type buildID struct {
	fields map[string]string
	sum    string
}

// buildSettingsCompared are the build settings that belong to the ID.
func buildSettingsCompared(key string) bool {
	switch key {
	case "-ldflags", "-tags", "-trimpath", "-compiler", "CGO_ENABLED", "GOOS", "GOARCH",
		"vcs", "vcs.revision", "vcs.time", "vcs.modified":
		return true
	}
	return strings.HasPrefix(key, "GOAMD64") || strings.HasPrefix(key, "GOARM") || strings.HasPrefix(key, "GO386")
}

// readBuildID reads the build info of the executable at path.
func readBuildID(path string) (buildID, error) {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return buildID{}, err
	}
	return buildIDOf(bi), nil
}

func buildIDOf(bi *debug.BuildInfo) buildID {
	f := map[string]string{
		"go":             bi.GoVersion,
		"module":         bi.Main.Path,
		"module.version": bi.Main.Version,
		"module.sum":     bi.Main.Sum,
	}
	for _, s := range bi.Settings {
		if buildSettingsCompared(s.Key) {
			f[s.Key] = s.Value
		}
	}
	keys := sortedKeys(f)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%s\n", k, f[k])
	}
	return buildID{fields: f, sum: hex.EncodeToString(h.Sum(nil))}
}

func (b buildID) short() string { return b.sum[:12] }

// note explains a weak identity (no VCS stamp).
func (b buildID) note() string {
	if b.fields["vcs.revision"] == "" {
		return " (no VCS stamp: compared toolchain, module version and build flags)"
	}
	rev := b.fields["vcs.revision"]
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if b.fields["vcs.modified"] == "true" {
		rev += "+dirty"
	}
	return ", revision " + rev
}

// diff lists the fields that differ, as "key a≠b" (values shortened).
func (b buildID) diff(o buildID) []string {
	all := map[string]bool{}
	for k := range b.fields {
		all[k] = true
	}
	for k := range o.fields {
		all[k] = true
	}
	var out []string
	for _, k := range sortedKeys(all) {
		if b.fields[k] != o.fields[k] {
			out = append(out, fmt.Sprintf("%s %q≠%q", k, clipValue(o.fields[k]), clipValue(b.fields[k])))
		}
	}
	return out
}

func clipValue(s string) string {
	if len(s) > 24 {
		return s[:24] + "…"
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
