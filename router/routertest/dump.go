package routertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Dump writes the recorded requests into dir in the layout of the shared
// captures: NNN-post.json (body, indented when it is JSON), NNN-post.hdr and
// NNN-get.hdr (request line and headers, lower-case, sorted), and
// server.log (one line per request).
func (u *Upstream) Dump(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var log strings.Builder
	for _, r := range u.Requests() {
		kind := strings.ToLower(r.Method)
		base := filepath.Join(dir, fmt.Sprintf("%03d-%s", r.Index, kind))
		if err := os.WriteFile(base+".hdr", headerText(r), 0o644); err != nil {
			return err
		}
		if r.Method == "POST" {
			body := r.Body
			var ind bytes.Buffer
			if json.Indent(&ind, r.Body, "", "  ") == nil {
				body = ind.Bytes()
			}
			if err := os.WriteFile(base+".json", append(body, '\n'), 0o644); err != nil {
				return err
			}
		}
		fmt.Fprintf(&log, "%03d %s %s kind=%s step=%d\n", r.Index, r.Method, r.Path, r.Kind(), r.Step)
	}
	return os.WriteFile(filepath.Join(dir, "server.log"), []byte(log.String()), 0o644)
}

func headerText(r Request) []byte {
	var b strings.Builder
	target := r.Path
	if r.RawQuery != "" {
		target += "?" + r.RawQuery
	}
	fmt.Fprintf(&b, "%s %s\n", r.Method, target)
	keys := make([]string, 0, len(r.Header))
	for k := range r.Header {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range r.Header[k] {
			fmt.Fprintf(&b, "%s: %s\n", strings.ToLower(k), v)
		}
	}
	return []byte(b.String())
}
